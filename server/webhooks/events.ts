// Event types of Part 6, and the data of the ones this layer defines.
export type EventType = 'document.generated' | 'document.failed' | 'template.published' | 'webhook.test'

/** Types an endpoint can subscribe to; `webhook.test` is always delivered to its one target. */
export const SUBSCRIBABLE_EVENTS = ['document.generated', 'document.failed', 'template.published'] as const
export type SubscribableEvent = typeof SUBSCRIBABLE_EVENTS[number]

/** `template.published` data (types the spec leaves open are fixed here, see docs/webhooks.md). */
export interface TemplatePublishedData {
  /** UUID string of the template. */
  templateId: string
  template: string
  version: number
  /** The version in force before this publish; null for a first publish. */
  previousVersion: number | null
  format: 'document' | 'label'
  note: string | null
  publishedBy: string | null
}

export interface Envelope {
  id: string
  type: EventType
  createdAt: string
  workspaceId: string
  data: Record<string, unknown>
}
