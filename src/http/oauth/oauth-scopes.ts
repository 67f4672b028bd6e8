/** Our scopes in an OAuth scope string, apart from the authorization server so the console need not load it. */
import { SCOPES, type Scope } from '../../domain/account/account.events.ts'

/** The scopes of a scope string that are ours, in the stable order. */
export function ourScopes(scope: string | undefined): Scope[] {
  const asked = new Set((scope ?? '').split(' '))
  return SCOPES.filter((s) => asked.has(s))
}
