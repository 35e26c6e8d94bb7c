import type { RenderErrorCode } from './types.js'

/**
 * An error the engine expects (bad expression, layout that cannot fit, limit reached).
 * render-task turns it into a RenderFailure; anything else is a bug and becomes RENDER_FAILED
 * with a generic message.
 */
export class RenderError extends Error {
  readonly code: RenderErrorCode
  constructor (code: RenderErrorCode, message: string) {
    super(message)
    this.name = 'RenderError'
    this.code = code
  }
}

/** A template file that does not validate or compile; `errors` name JSON paths. */
export class TemplateError extends Error {
  readonly errors: Array<{ path: string, message: string }>
  constructor (message: string, errors: Array<{ path: string, message: string }> = []) {
    super(message)
    this.name = 'TemplateError'
    this.errors = errors
  }
}

/**
 * A template over one of the engine's own limits (engine/limits.ts): TEMPLATE_INVALID when it
 * is published, RENDER_LIMIT_EXCEEDED when a worker meets it while compiling for a render.
 */
export class TemplateLimitError extends TemplateError {
  constructor (message: string, errors: Array<{ path: string, message: string }> = []) {
    super(message, errors)
    this.name = 'TemplateLimitError'
  }
}
