// The GS1 application identifiers we accept, from the GS1 General Specifications (section 3,
// "GS1 Application Identifiers"): each AI's data as components, `N`/`X` = digits / GS1 AI
// encodable character set 82, a fixed length or `..max`, and the checks on it. An AI not in this
// table fails the render (a scanner would accept it, a receiving system may not): the table is
// the logistics and trade-item subset used on labels, extended by adding rows.

export type Check = 'csum' | 'date'
export interface Part { kind: 'N' | 'X', min: number, max: number, check?: Check }
export interface AiSpec { ai: string, title: string, parts: Part[] }

const n = (len: number, check?: Check): Part => ({ kind: 'N', min: len, max: len, check })
const nv = (max: number, min = 1): Part => ({ kind: 'N', min, max })
const xv = (max: number): Part => ({ kind: 'X', min: 1, max })

const rows: Array<[string, string, Part[]]> = [
  ['00', 'SSCC', [n(18, 'csum')]],
  ['01', 'GTIN', [n(14, 'csum')]],
  ['02', 'CONTENT', [n(14, 'csum')]],
  ['10', 'BATCH/LOT', [xv(20)]],
  ['11', 'PROD DATE', [n(6, 'date')]],
  ['12', 'DUE DATE', [n(6, 'date')]],
  ['13', 'PACK DATE', [n(6, 'date')]],
  ['15', 'BEST BEFORE', [n(6, 'date')]],
  ['16', 'SELL BY', [n(6, 'date')]],
  ['17', 'USE BY', [n(6, 'date')]],
  ['20', 'VARIANT', [n(2)]],
  ['21', 'SERIAL', [xv(20)]],
  ['22', 'CPV', [xv(20)]],
  ['240', 'ADDITIONAL ID', [xv(30)]],
  ['241', 'CUST. PART No.', [xv(30)]],
  ['250', 'SECONDARY SERIAL', [xv(30)]],
  ['251', 'REF. TO SOURCE', [xv(30)]],
  ['253', 'GDTI', [n(13, 'csum'), { kind: 'X', min: 0, max: 17 }]],
  ['254', 'GLN EXTENSION', [xv(20)]],
  ['30', 'VAR. COUNT', [nv(8)]],
  ['37', 'COUNT', [nv(8)]],
  ['400', 'ORDER NUMBER', [xv(30)]],
  ['401', 'GINC', [xv(30)]],
  ['402', 'GSIN', [n(17, 'csum')]],
  ['403', 'ROUTE', [xv(30)]],
  ['410', 'SHIP TO LOC', [n(13, 'csum')]],
  ['411', 'BILL TO', [n(13, 'csum')]],
  ['412', 'PURCHASE FROM', [n(13, 'csum')]],
  ['413', 'SHIP FOR LOC', [n(13, 'csum')]],
  ['414', 'LOC No.', [n(13, 'csum')]],
  ['415', 'PAY TO', [n(13, 'csum')]],
  ['416', 'PROD/SERV LOC', [n(13, 'csum')]],
  ['417', 'PARTY', [n(13, 'csum')]],
  ['420', 'SHIP TO POST', [xv(20)]],
  ['421', 'SHIP TO POST', [n(3), { kind: 'X', min: 0, max: 9 }]],
  ['422', 'ORIGIN', [n(3)]],
  ['7003', 'EXPIRY TIME', [n(10)]],
  ['8005', 'PRICE PER UNIT', [n(6)]],
  ['8018', 'GSRN - PROVIDER', [n(18, 'csum')]],
  ['8020', 'REF No.', [xv(25)]],
  ['90', 'INTERNAL', [xv(30)]]
]
// Measures: 310n–316n, 320n–369n (n = decimal places 0–5), six digits each.
for (let p = 310; p <= 369; p++) {
  if (p >= 317 && p <= 319) continue
  for (let d = 0; d <= 5; d++) rows.push([`${p}${d}`, 'MEASURE', [n(6)]])
}
// Company internal information 91–99.
for (let k = 91; k <= 99; k++) rows.push([String(k), 'INTERNAL', [xv(90)]])

export const AI_TABLE: ReadonlyMap<string, AiSpec> =
  new Map(rows.map(([ai, title, parts]) => [ai, { ai, title, parts }]))

/**
 * AIs whose length is predefined by their first two digits (GS1 General Specifications, figure
 * 5.10.1-2): no FNC1 separator follows them. Every other AI ends with one unless it is last.
 */
const PREDEFINED = new Set(['00', '01', '02', '03', '04', '11', '12', '13', '14', '15', '16', '17', '18', '19', '20',
  '31', '32', '33', '34', '35', '36', '41'])

export function isPredefinedLength (ai: string): boolean {
  return PREDEFINED.has(ai.slice(0, 2))
}
