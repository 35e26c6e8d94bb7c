// The render's checks that need no database, in the spec's order after the template:
// environment → format → parameters. Shared by sync renders, jobs, dataset runs (server/render/
// pipeline.ts) and `svc templates preview`, so the CLI answers exactly what the server would.
import { problem } from '../errors.js'
import { assertEnvironmentAllowed } from '../auth/keys.js'
import type { AuthContext } from '../auth/keys.js'
import { requireEnvironment } from '../services/environments.js'
import type { ParameterCheckResult } from '../../engine/template/parameters.js'
import { isDpi, type Dpi } from '../../engine/zpl/dpi.js'

/** The environment asked for, when the workspace has it and the key may use it. */
export function environmentFor<E extends { key: string, isProduction: boolean }> (auth: AuthContext, key: string,
  env: E | undefined): E {
  const found = requireEnvironment(key, env)
  assertEnvironmentAllowed(auth, found)
  return found
}

/** 422 FORMAT_MISMATCH when the caller names another format than the template renders. */
export function checkFormat (template: { code: string, outputFormat: 'pdf' | 'zpl' }, requested?: string): void {
  if (requested !== undefined && requested !== template.outputFormat) {
    throw problem('FORMAT_MISMATCH', `Template "${template.code}" renders ${template.outputFormat}, not ${requested}`)
  }
}

/** The parameters normalised by the version's checker, or 400 PARAMETER_INVALID naming the first. */
export function checkParameters (
  check: (values: unknown) => ParameterCheckResult,
  values: unknown
): Record<string, unknown> {
  const checked = check(values ?? {})
  if (checked.ok) return checked.values
  const first = Object.entries(checked.errors)[0]
  // No entries when the checker gave no field errors

  const detail = first === undefined ? 'Parameters are invalid' : `${first[0]}: ${first[1][0]}`
  throw problem('PARAMETER_INVALID', detail, { errors: checked.errors })
}

/**
 * A label's printer resolution: the request's `context.labelDpi` (152, 203, 300 or 600; else
 * 400 VALIDATION_FAILED), else the environment's default, else undefined (the template's own).
 */
export function labelDpiOf (context: Record<string, unknown>, env: { labelDpi?: number | null }): Dpi | undefined {
  const asked = context.labelDpi
  if (asked !== undefined) {
    if (!isDpi(asked)) {
      const message = 'must be 152, 203, 300 or 600'
      throw problem('VALIDATION_FAILED', `context.labelDpi ${message}`, { errors: { '/context/labelDpi': [message] } })
    }
    return asked
  }
  return isDpi(env.labelDpi) ? env.labelDpi : undefined
}
