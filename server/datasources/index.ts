// CONTRACT STUB (owned by the data-sources helper, who replaces the bodies): one small mysql2
// pool per environment's data source; dataset queries with bound named parameters.
import type { DatasetValues } from '../../workers/types.js'
import type { TemplateDefinition } from '../../workers/template/definition.js'
import type { Environment } from '../store/repos/environments.js'
import type { EnvironmentsService } from '../services/environments.js'
import type { Config } from '../config.js'
import { problem } from '../errors.js'

export interface DatasetResult {
  columns: Array<{ name: string, type: string }>
  rows: Array<Record<string, unknown>>
  rowCount: number
  truncated: boolean
  elapsedMs: number
}

export function dataSources (_config: Config, _environments: EnvironmentsService) {
  return {
    /**
     * Runs every dataset of the template in parallel on the environment's data source:
     * `single` → row or null, `multiple` → rows. Errors: DATASET_FAILED (422, query error),
     * DATA_SOURCE_UNAVAILABLE (503, unreachable/refused/timeout), RENDER_LIMIT_EXCEEDED (422, > maxRows in all).
     */
    async readAll (_env: Environment, _def: TemplateDefinition, _parameters: Record<string, unknown>, _context: Record<string, unknown>, _maxRows: number): Promise<{ datasets: DatasetValues, rowCount: number }> {
      throw problem('DATA_SOURCE_UNAVAILABLE', 'not implemented')
    },
    /** One dataset, for POST /v1/datasets/{template}/{dataset}/execute. */
    async execute (_env: Environment, _def: TemplateDefinition, _dataset: string, _parameters: Record<string, unknown>, _context: Record<string, unknown>, _maxRows: number): Promise<DatasetResult> {
      throw problem('DATA_SOURCE_UNAVAILABLE', 'not implemented')
    },
    async close (): Promise<void> {}
  }
}
export type DataSources = ReturnType<typeof dataSources>
