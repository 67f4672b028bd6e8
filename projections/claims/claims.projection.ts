/**
 * Claims: one row per decision of every effect the domain declares (LEAD_EFFECTS, the Facebook lead
 * fetcher's and the number buyer's on their own streams), and how far it
 * got: decided (no one claimed it), claimed (performing, no outcome yet), done. Every effect process
 * reads its own here: the decisions to resume after a start, the claims its sweep marks outcome
 * unknown. A new effect is followed once its slice declares it; this file does not change.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import { LEAD_EFFECTS, parseLeadStream } from '../../src/domain/lead/lead.events.ts'
import { FACEBOOK_FETCH_EFFECT, parseFacebookLeadStream } from '../../src/domain/facebook-lead-ads/facebook-lead.events.ts'
import { NUMBER_PURCHASE_EFFECT } from '../../src/domain/numbers/number-purchase.events.ts'
import type { Effect } from '../../src/domain/shared/effect.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

/** What an event type does to a decision of one effect; `at`: the data's field with the time. */
type Step =
  | { readonly effect: Effect; readonly stage: 'decided' | 'claimed'; readonly at: string }
  | { readonly effect: Effect; readonly stage: 'done' }

function stepsOf(effects: readonly Effect[]): Map<string, Step[]> {
  const steps = new Map<string, Step[]>()
  const add = (type: string, step: Step) => steps.set(type, [...(steps.get(type) ?? []), step])
  for (const effect of effects) {
    add(effect.decision, { effect, stage: 'decided', at: effect.decidedAt })
    for (const [type, at] of Object.entries(effect.claims)) add(type, { effect, stage: 'claimed', at })
    for (const type of effect.outcomes) add(type, { effect, stage: 'done' })
  }
  return steps
}

const STEPS = stepsOf([...LEAD_EFFECTS, FACEBOOK_FETCH_EFFECT, NUMBER_PURCHASE_EFFECT])

/** The account a decision belongs to: its stream's, or (a number's purchase, on the number's own stream) the decision's. */
function accountOf(stream: string, data: Readonly<Record<string, unknown>>): string {
  const fromData = typeof data.accountId === 'string' ? data.accountId : ''
  return parseLeadStream(stream)?.accountId ?? parseFacebookLeadStream(stream)?.accountId ?? fromData
}

export const claimsProjection: Projection = {
  name: 'claims',
  version: 1,
  handles: [...STEPS.keys()],
  tables: ['claims'],

  // Partial indexes: they hold only the open work (decided or claimed), however many decisions are done.
  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS claims (
        effect TEXT NOT NULL,
        id TEXT NOT NULL,
        stream TEXT NOT NULL,
        account_id TEXT NOT NULL,
        decided_at TEXT NOT NULL,
        decided_position INTEGER NOT NULL,
        stage TEXT NOT NULL,
        claimed_at TEXT,
        PRIMARY KEY (effect, id)
      );
      CREATE INDEX IF NOT EXISTS claims_unclaimed_by_account ON claims (effect, account_id, decided_position) WHERE stage = 'decided';
      CREATE INDEX IF NOT EXISTS claims_unclaimed ON claims (effect, decided_position) WHERE stage = 'decided';
      CREATE INDEX IF NOT EXISTS claims_claimed ON claims (effect, decided_position) WHERE stage = 'claimed';
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const data = recorded.data as Readonly<Record<string, string>>
    for (const step of STEPS.get(recorded.type) ?? []) {
      const { effect } = step
      const id = data[effect.id]
      switch (step.stage) {
        case 'decided':
          statement(
            db,
            `INSERT OR IGNORE INTO claims (effect, id, stream, account_id, decided_at, decided_position, stage) VALUES (?, ?, ?, ?, ?, ?, 'decided')`,
          ).run(effect.name, id, recorded.stream, accountOf(recorded.stream, data), data[step.at], recorded.position)
          break
        case 'claimed':
          statement(db, "UPDATE claims SET stage = 'claimed', claimed_at = ? WHERE effect = ? AND id = ?").run(data[step.at], effect.name, id)
          break
        case 'done':
          statement(db, "UPDATE claims SET stage = 'done' WHERE effect = ? AND id = ?").run(effect.name, id)
          break
      }
    }
  },
}
