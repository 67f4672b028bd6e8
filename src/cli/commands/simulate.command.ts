/**
 * `leadline simulate inbound-call`: a person calls the account's number on the simulated carrier, played
 * through the same inbound reports Twilio's voice webhook reaches, and what it recorded, read back from
 * the log. Refused on a real carrier. The text-back and the owner alert are the server's processes: they
 * go out from `leadline serve` (running, or at its next start within 15 minutes).
 */
import { simulateInboundCall } from '../../commands/simulate-inbound-call.command.ts'
import { SIMULATED_INBOUND_SCENARIOS } from '../../integrations/carrier/carrier.port.ts'
import { json, parse, required, shown, UsageError, withLeadline, type Io } from '../cli-io.ts'

const USAGE = `leadline simulate inbound-call --account ACCOUNT_ID --from +1… [--scenario ${SIMULATED_INBOUND_SCENARIOS.join('|')}] [--json]`

export async function simulateCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  if (sub !== 'inbound-call') throw new UsageError(`usage: ${USAGE}`)
  const { values } = parse(rest, { account: { type: 'string' }, from: { type: 'string' }, scenario: { type: 'string' }, json: { type: 'boolean' } })
  const accountId = required(values.account, '--account')
  const from = required(values.from, '--from')
  const scenario = values.scenario ?? 'no-answer'
  if (!(SIMULATED_INBOUND_SCENARIOS as readonly string[]).includes(scenario)) throw new UsageError(`--scenario takes ${SIMULATED_INBOUND_SCENARIOS.join(', ')}`)
  await withLeadline(io, async (leadline) => {
    const result = await simulateInboundCall({ accounts: leadline.accounts, carrier: leadline.carrier, commands: leadline.commands }, accountId, { from, scenario })
    if (values.json === true) return io.out(json(result))
    io.out(
      [
        `SIMULATED inbound call ${result.callId} from ${result.from} to ${result.to} (${result.scenario}): no phone rang`,
        ...result.steps.map((step) => `  ${shown(step)}`),
        `outcome: ${result.outcome}`,
        'recorded on the lead:',
        ...result.events.map((event) => `  ${event.type}: ${shown(event.summary)}`),
        ...(result.events.some((e) => e.type === 'InboundCallMissed') ? ['the text-back and the owner alert go out from the server (leadline serve)'] : []),
      ].join('\n'),
    )
  })
}
