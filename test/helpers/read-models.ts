/** Dumps every projection's tables in a stable order, to compare a read model with a fresh rebuild. */
import type { Leadline } from '../../src/leadline.ts'

export function dumpReadModels(leadline: Pick<Leadline, 'views' | 'runner'>): Record<string, unknown[]> {
  const dump: Record<string, unknown[]> = {}
  for (const projection of leadline.runner.projections) {
    for (const table of projection.tables) {
      const columns = (leadline.views.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name)
      dump[table] = leadline.views.prepare(`SELECT * FROM ${table} ORDER BY ${columns.join(', ')}`).all()
    }
  }
  return dump
}
