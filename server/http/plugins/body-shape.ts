// Runs the body-shape limits (validation/body-shape.ts) before schema validation, on every
// route with a body; its problem goes through the route's error handling like a schema error.
import type { FastifyInstance } from 'fastify'
import { bodyShapeProblem } from '../validation/body-shape.js'

export function bodyShapePlugin (app: FastifyInstance): void {
  // A callback hook: it runs on every request with a body, and an async hook costs a promise each.
  app.addHook('preValidation', (request, _reply, done) => {
    done(bodyShapeProblem(request.body))
  })
}
