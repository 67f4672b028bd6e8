/**
 * The `instructions` an agent reads from `initialize`: a few fixed lines on how the endpoint works
 * around a list of tools made from the registry (name, scope, one-line summary), so a new tool file
 * is listed with no edit here.
 */
import { SCOPES } from '../../domain/account/account.events.ts'
import type { ToolRegistry } from './tool-registry.ts'

export function serverInstructions(registry: ToolRegistry): string {
  const tools = [...registry.tools].sort((a, b) => SCOPES.indexOf(a.scope) - SCOPES.indexOf(b.scope))
  const scopes = SCOPES.map((scope) => [scope, tools.filter((tool) => tool.scope === scope).map((tool) => tool.name)] as const)
    .filter(([, names]) => names.length > 0)
    .map(([scope, names]) => `${scope} (${names.join(', ')})`)
  const start = registry.get('get_next_actions') ? ' Start with get_next_actions to see which leads need a call.' : ''
  return [
    "Leadline holds one account's book of leads: the Inbound Leads list, each lead's history, and outbound calls.",
    `Your API key decides the account and the scopes: ${scopes.join(', ')}.`,
    'Tools:',
    ...tools.map((tool) => `- ${tool.name} (${tool.scope}): ${tool.summary}`),
    `Write tools take an idempotency_key (reuse it to retry safely) and dry_run (true: report what would happen, change nothing).${start}`,
    'Errors carry a stable error.data.code, e.g. outside_calling_hours with data.next_allowed_at.',
  ].join('\n')
}
