/**
 * `leadline operator-token`: a new operator token for /metrics and /readyz's details. The token is
 * printed once and kept nowhere; the server is given only its hash (LEADLINE_OPERATOR_TOKEN_HASH).
 */
import { issueOperatorToken } from '../../http/operator/operator-token.ts'
import { json, parse, type Io } from '../cli-io.ts'

export async function operatorTokenCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { json: { type: 'boolean' } })
  const { token, hash } = issueOperatorToken()
  if (values.json) return io.out(json({ token, hash }))
  io.out(
    [
      `operator token (shown once, store it now): ${token}`,
      `give the server its hash (add it after a comma to keep an older token working):`,
      `  LEADLINE_OPERATOR_TOKEN_HASH=${hash}`,
      `then read /metrics and /readyz with: Authorization: Bearer ${token.slice(0, 9)}…`,
    ].join('\n'),
  )
}
