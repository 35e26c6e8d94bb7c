// The check every HTTP test makes of an error answer: its status, the problem media type, the
// errorCode, and a correlation id equal to X-Correlation-ID. Returns the body for more checks.
import assert from 'node:assert/strict'

export function problemOf (
  // Parsed JSON under test: the assertions check its shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  res: { status: number, headers: Record<string, unknown>, json(): any },
  status: number,
  code: string
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
): any {
  assert.equal(res.status, status, JSON.stringify(res.json()))
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
  const body = res.json()
  assert.equal(body.errorCode, code)
  assert.equal(body.correlationId, res.headers['x-correlation-id'])
  return body
}
