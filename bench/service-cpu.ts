// Who used the CPU during a run: the server process (all its threads), MariaDB and this
// process (the load generator), as shares of all cores over the wall time. From
// /proc/<pid>/stat (utime + stime, clock ticks of 1/100 s on Linux).
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'

export interface CpuSplit {
  wallMs: number
  cores: number
  server: number
  /** The part of `server` spent in the kernel (socket writes to MariaDB and clients, TLS is user time). */
  serverSys: number
  /** The part of `server` spent on its main thread (HTTP, TLS, SQL, logging: all but the renders). */
  serverMain: number
  mariadb: number
  loadGenerator: number
  /** Everything else on the machine (other users' processes, the kernel's own threads). */
  others: number
  /** Idle as the kernel counts it (/proc/stat). */
  idle: number
}

/** Busy and idle ticks of all cores together, from the first line of /proc/stat. */
function machine (): { busy: number, idle: number } {
  try {
    const [first = ''] = readFileSync('/proc/stat', 'utf8').split('\n', 1)
    // user nice system idle iowait irq softirq steal (guest time is already inside user/nice);
    // a missing field (an old kernel) makes the figure NaN, as an unreadable file does.
    const [user = NaN, nice = NaN, system = NaN, idle = NaN, iowait = NaN, irq = NaN, softirq = NaN, steal = NaN] =
      first.trim().split(/\s+/).slice(1).map(Number)
    return { busy: user + nice + system + irq + softirq + steal, idle: idle + iowait }
  } catch { return { busy: NaN, idle: NaN } }
}

/** A process's CPU ticks (or one thread's: `task` = its thread id, the main thread's is the pid). */
function times (pid: number, task?: number): { user: number, sys: number } {
  if (!Number.isInteger(pid) || pid <= 0) return { user: NaN, sys: NaN }
  try {
    const stat = readFileSync(task === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${task}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { user: Number(f[11]), sys: Number(f[12]) }
  } catch { return { user: NaN, sys: NaN } }
}
const ticks = (pid: number, task?: number): number => { const t = times(pid, task); return t.user + t.sys }

export function cpuSampler (pids: { server: number, mariadb: number }) {
  const cores = availableParallelism()
  return {
    start () {
      const t0 = performance.now()
      const s0 = ticks(pids.server)
      const sys0 = times(pids.server).sys
      const main0 = ticks(pids.server, pids.server)
      const m0 = ticks(pids.mariadb)
      const c0 = process.cpuUsage()
      const all0 = machine()
      return {
        stop (): CpuSplit {
          const wallMs = performance.now() - t0
          const c = process.cpuUsage(c0)
          const share = (ms: number): number => ms / (wallMs * cores)
          const server = share((ticks(pids.server) - s0) * 10)
          const serverSys = share((times(pids.server).sys - sys0) * 10)
          const serverMain = share((ticks(pids.server, pids.server) - main0) * 10)
          const mariadb = share((ticks(pids.mariadb) - m0) * 10)
          const loadGenerator = share((c.user + c.system) / 1000)
          const all = machine()
          const total = (all.busy - all0.busy) + (all.idle - all0.idle)
          const busy = (all.busy - all0.busy) / total
          return {
            wallMs,
            cores,
            server,
            serverSys,
            serverMain,
            mariadb,
            loadGenerator,
            others: Math.max(0, busy - server - mariadb - loadGenerator),
            idle: (all.idle - all0.idle) / total
          }
        }
      }
    }
  }
}
