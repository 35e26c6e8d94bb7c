// Every /api/v1 route, registered in one place. Each resource has its own file.
import type { FastifyInstance } from 'fastify'
import type { Context } from '../../context.js'
import { whoamiRoute } from './whoami.js'

export interface ApiDeps {
  context: Context
}

export async function apiRoutes (api: FastifyInstance, deps: ApiDeps): Promise<void> {
  whoamiRoute(api, deps)
}
