/** The dialer: every call decision on the log is performed once, paced per account (see DialingService.dial). */
import type { RecordedEvent } from '../../domain/event.ts'
import type { CallDecided } from '../../domain/lead/lead.events.ts'
import type { DialingService } from './dialer.process.ts'
import type { Reactor } from '../process-runner.ts'

export function dialerProcess(dialing: DialingService): Reactor {
  return {
    name: 'dialer',
    handles: ['CallDecided'],
    async react(event: RecordedEvent) {
      // Queued, not awaited: a paced call must not hold back the rest of the log. The runner's
      // checkpoint waits for it instead, so a stop before its claim delivers it again.
      return { settled: dialing.queue(event.stream, (event as unknown as CallDecided).data.decisionId) }
    },
  }
}
