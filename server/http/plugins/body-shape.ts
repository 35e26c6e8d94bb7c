// Runs the body-shape limits (validation/body-shape.ts) before schema validation, on every
// route with a body; its problem goes through the route's error handling like a schema error.
import type { FastifyInstance } from 'fastify'
import { bodyShapeProblem } from '../validation/body-shape.js'

export function bodyShapePlugin (app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const p = bodyShapeProblem(request.body)
    if (p !== undefined) throw p
  })
}
