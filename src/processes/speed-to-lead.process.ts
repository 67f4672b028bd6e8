/**
 * Speed to lead: on a new lead (LeadReceived, never LeadUpdated: one person never gets two
 * sequences) decide at once whether to call. The decision, or the reason there is none (speed to
 * lead off, outside calling hours with the next allowed time, do-not-call), goes on the lead's history.
 */
import type { RecordedEvent } from '../eventstore/event.ts'
import type { CommandHandler } from '../eventstore/command-handler.ts'
import { leadDecider } from '../domain/lead/lead.decider.ts'
import type { LeadReceived } from '../domain/lead/lead.events.ts'
import { newId } from '../domain/shared/ids.ts'
import type { AccountsService } from '../services/accounts.service.ts'
import type { Reactor } from './process-runner.ts'

export function speedToLeadProcess(commands: CommandHandler, accounts: AccountsService): Reactor {
  return {
    name: 'speed-to-lead',
    handles: ['LeadReceived'],
    async react(event: RecordedEvent) {
      const { accountId } = (event as unknown as LeadReceived).data
      const account = await accounts.get(accountId)
      if (!account) return
      await commands.handle(
        event.stream,
        leadDecider,
        { type: 'DecideSpeedToLead', settings: account.settings, decisionId: newId('dec') },
        { actor: { kind: 'process', id: 'speed-to-lead' }, correlationId: event.metadata.correlationId, causationId: event.id },
      )
    },
  }
}
