/**
 * Inbound Leads: every lead grouped into the account's Inbound Leads list, one row per person
 * (account + last ten digits), with the fields as merged from every submission.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { LeadEvent } from '../../src/domain/lead/lead.events.ts'
import { INBOUND_LEADS, parseLeadStream } from '../../src/domain/lead/lead.events.ts'
import { mergeExtraFields, type ExtraField } from '../../src/domain/lead/intake/extra-fields.ts'
import { editedExtraFields } from '../../src/domain/lead/intake/lead-edits.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

const COLUMNS = {
  phone: 'phone',
  fullName: 'full_name',
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'email',
  state: 'state',
  age: 'age',
  dob: 'dob',
  source: 'source',
  vendor: 'vendor',
  leadDate: 'lead_date',
  city: 'city',
  zip: 'zip',
  address: 'address',
} as const

/** One more lead in the account's Inbound Leads (the count the console shows, read without counting rows). */
function countListed(db: Database, accountId: string): void {
  statement(db, 'INSERT INTO inbound_lead_counts (account_id, listed) VALUES (?, 1) ON CONFLICT(account_id) DO UPDATE SET listed = listed + 1').run(accountId)
}

export const inboundLeadsProjection: Projection = {
  name: 'inbound-leads',
  // 2: extra fields merged by name and bounded (mergeExtraFields), so rows written before are rebuilt.
  // 3: the source and vendor indexes hold only the leads that have one (a filter by either names one).
  // 4: each account's count of listed leads kept as they are listed (the console's leads page counted a million rows).
  version: 4,
  handles: ['LeadReceived', 'LeadUpdated', 'LeadEdited', 'LeadAddedToList', 'LeadDoNotCallCleared', 'LeadMarkedDoNotCall'],
  tables: ['inbound_leads', 'inbound_lead_counts'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS inbound_leads (
        stream TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        lead_id TEXT NOT NULL UNIQUE,
        phone TEXT NOT NULL,
        phone_last10 TEXT NOT NULL,
        full_name TEXT, first_name TEXT, last_name TEXT, email TEXT, state TEXT, age INTEGER, dob TEXT,
        source TEXT, vendor TEXT, lead_date TEXT, city TEXT, zip TEXT, address TEXT,
        do_not_call INTEGER NOT NULL DEFAULT 0,
        industry_fields TEXT NOT NULL DEFAULT '{}',
        extra_fields TEXT NOT NULL DEFAULT '[]',
        listed INTEGER NOT NULL DEFAULT 0,
        submissions INTEGER NOT NULL DEFAULT 1,
        received_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        received_position INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS inbound_leads_by_account ON inbound_leads (account_id, received_position);
      CREATE INDEX IF NOT EXISTS inbound_leads_by_source ON inbound_leads (account_id, source COLLATE NOCASE, received_position) WHERE source IS NOT NULL;
      CREATE INDEX IF NOT EXISTS inbound_leads_by_vendor ON inbound_leads (account_id, vendor COLLATE NOCASE, received_position) WHERE vendor IS NOT NULL;
      CREATE TABLE IF NOT EXISTS inbound_lead_counts (account_id TEXT PRIMARY KEY, listed INTEGER NOT NULL);
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as LeadEvent
    switch (event.type) {
      case 'LeadReceived': {
        const f = event.data.fields
        const listed = event.data.list?.listId === INBOUND_LEADS.listId
        const added = statement(db, 
          `INSERT OR IGNORE INTO inbound_leads (stream, account_id, lead_id, phone, phone_last10, full_name, first_name, last_name, email,
             state, age, dob, source, vendor, lead_date, city, zip, address, do_not_call, industry_fields, extra_fields,
             listed, received_at, updated_at, received_position)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          recorded.stream, event.data.accountId, event.data.leadId, f.phone, f.phoneLast10, f.fullName ?? null, f.firstName ?? null,
          f.lastName ?? null, f.email ?? null, f.state ?? null, f.age ?? null, f.dob ?? null, f.source ?? null, f.vendor ?? null,
          f.leadDate ?? null, f.city ?? null, f.zip ?? null, f.address ?? null, f.doNotCall === true ? 1 : 0,
          JSON.stringify(f.industryFields), JSON.stringify(mergeExtraFields([], f.extraFields)), listed ? 1 : 0,
          event.data.receivedAt, event.data.receivedAt, recorded.position,
        )
        if (listed && added.changes > 0) countListed(db, event.data.accountId)
        return
      }
      case 'LeadUpdated': {
        const sets: string[] = ['updated_at = ?', 'submissions = submissions + 1']
        const values: unknown[] = [event.data.updatedAt]
        for (const [key, column] of Object.entries(COLUMNS)) {
          const value = event.data.changes[key as keyof typeof COLUMNS]
          if (value !== undefined) {
            sets.push(`${column} = ?`)
            values.push(value)
          }
        }
        if (event.data.changes.doNotCall === true) sets.push('do_not_call = 1')
        if (Object.keys(event.data.industryFields).length > 0 || event.data.extraFields.length > 0) {
          const row = statement(db, 'SELECT industry_fields, extra_fields FROM inbound_leads WHERE stream = ?').get(recorded.stream) as
            | { industry_fields: string; extra_fields: string }
            | undefined
          if (row) {
            sets.push('industry_fields = ?', 'extra_fields = ?')
            values.push(
              JSON.stringify({ ...JSON.parse(row.industry_fields), ...event.data.industryFields }),
              JSON.stringify(mergeExtraFields(JSON.parse(row.extra_fields) as ExtraField[], event.data.extraFields)),
            )
          }
        }
        statement(db, `UPDATE inbound_leads SET ${sets.join(', ')} WHERE stream = ?`).run(...values, recorded.stream)
        return
      }
      case 'LeadEdited': {
        // The account's edit sets or clears (null) the columns it names; custom fields are the extra fields.
        const sets: string[] = ['updated_at = ?']
        const values: unknown[] = [event.data.editedAt]
        for (const [key, value] of Object.entries(event.data.changes)) {
          const column = COLUMNS[key as keyof typeof COLUMNS]
          sets.push(`${column} = ?`)
          values.push(value)
        }
        if (event.data.customFields.length > 0) {
          const row = statement(db, 'SELECT extra_fields FROM inbound_leads WHERE stream = ?').get(recorded.stream) as { extra_fields: string } | undefined
          if (row) {
            sets.push('extra_fields = ?')
            values.push(JSON.stringify(editedExtraFields(JSON.parse(row.extra_fields) as ExtraField[], event.data.customFields)))
          }
        }
        statement(db, `UPDATE inbound_leads SET ${sets.join(', ')} WHERE stream = ?`).run(...values, recorded.stream)
        return
      }
      case 'LeadAddedToList':
        if (event.data.listId === INBOUND_LEADS.listId && statement(db, 'UPDATE inbound_leads SET listed = 1 WHERE stream = ? AND listed = 0').run(recorded.stream).changes > 0) {
          countListed(db, parseLeadStream(recorded.stream)?.accountId ?? '')
        }
        return
      case 'LeadDoNotCallCleared':
        statement(db, 'UPDATE inbound_leads SET do_not_call = 0 WHERE stream = ?').run(recorded.stream)
        return
      case 'LeadMarkedDoNotCall':
        statement(db, 'UPDATE inbound_leads SET do_not_call = 1 WHERE stream = ?').run(recorded.stream)
        return
    }
  },
}
