// The API key of the commands that call the API (svc bench): one variable name everywhere,
// SVC_API_KEY, with SVC_KEY (what older `svc demo` output exported) read as an alias.
import { UsageError } from './io.js'

export const API_KEY_VARIABLES = ['SVC_API_KEY', 'SVC_KEY'] as const

/** SVC_API_KEY, else SVC_KEY, else undefined. */
export function apiKeyFromEnv (env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const name of API_KEY_VARIABLES) {
    const value = env[name]
    if (value !== undefined && value !== '') return value
  }
  return undefined
}

/** The usage error of a command that needs a key and has none. */
export function noApiKey (): UsageError {
  return new UsageError('no API key: set SVC_API_KEY (alias SVC_KEY) or pass --key; `svc demo` prints a live and a ' +
    'test key, ' +
    'and `svc keys create --workspace ID --name bench --mode test --scopes render` makes one')
}
