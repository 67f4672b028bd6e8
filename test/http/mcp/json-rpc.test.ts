/** The JSON-RPC error mapping and the single-serialization tool result. */
import t from 'tap'
import { DomainError } from '../../../src/domain/shared/decider.ts'
import { StoreUnavailableError } from '../../../src/eventstore/event-store.port.ts'
import { failure, fromDomainError, serializeResponse, success, toRpcError, ToolCallResult } from '../../../src/http/mcp/json-rpc.ts'

t.test('domain refusals: arguments are -32602, the rest -32603; details become snake_case data', async (t) => {
  t.same(fromDomainError(new DomainError('outside_calling_hours', 'not now', { nextAllowedAt: '2026-01-05T14:00:00.000Z', accountZone: 'America/New_York' })).toObject(), {
    code: -32603,
    message: 'not now',
    data: { code: 'outside_calling_hours', next_allowed_at: '2026-01-05T14:00:00.000Z', account_zone: 'America/New_York' },
  })
  for (const code of ['idempotency_key_reused', 'invalid_cursor', 'invalid_since']) t.equal(fromDomainError(new DomainError(code, 'x')).code, -32602, code)
  t.same(fromDomainError(new DomainError('store_unavailable', 'x')).toObject().data, { code: 'store_unavailable', retry_after_seconds: 5 })
  t.same(fromDomainError(new DomainError('idempotency_in_progress', 'x', { retryAfterSeconds: 2 })).toObject().data, { code: 'idempotency_in_progress', retry_after_seconds: 2 })
  t.same(toRpcError(new StoreUnavailableError('disk full'))?.toObject(), {
    code: -32603,
    message: 'the log cannot take writes right now; nothing was recorded',
    data: { code: 'store_unavailable', retry_after_seconds: 5 },
  })
  t.equal(toRpcError(new TypeError('bug')), null, 'a bug is not shown')
})

t.test('a tool result is serialized once, and reads the same as the generic serialization', async (t) => {
  const text = JSON.stringify({ list: 'Inbound Leads', leads: [{ name: 'Jane "JJ" Doe' }] })
  for (const replayed of [false, true]) {
    const response = success(7, new ToolCallResult(text, replayed))
    const serialized = serializeResponse(response)
    t.same(JSON.parse(serialized), {
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text }], structuredContent: JSON.parse(text), ...(replayed ? { _meta: { 'leadline/replayed': true } } : {}) },
    })
    t.same(JSON.parse(JSON.stringify(response)), JSON.parse(serialized), 'toJSON agrees')
  }
  t.equal(serializeResponse(failure('a', { code: -32601, message: 'm', data: { code: 'method_not_found' } })), '{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"m","data":{"code":"method_not_found"}}}')
})
