/**
 * Charts drawn on the server as SVG: bars (one or two series) and a heat map. No library, no script,
 * no style attribute (the console's CSP forbids inline style): colours come from console.css classes,
 * a heat map cell's strength from `fill-opacity`. Each chart is decoration beside its table, which is
 * what a screen reader reads, so the SVG is hidden from assistive technology.
 */
import { html, type Html } from '../html.ts'

const WIDTH = 640
const HEIGHT = 220
const PAD = { top: 16, right: 8, bottom: 36, left: 44 }

export interface BarSeries {
  readonly name: string
  /** One per label; null draws no bar (no value, not zero). */
  readonly values: ReadonlyArray<number | null>
}

export interface BarChartInput {
  readonly labels: readonly string[]
  readonly series: readonly BarSeries[]
  /** The y axis' top value's words (`600 s`, `100 %`). */
  readonly format: (value: number) => string
  /** The axis' top; the largest value when absent. */
  readonly max?: number
}

/** At most this many x labels are written; the others are left out evenly. */
const MAX_LABELS = 10

/** Vertical bars, grouped by label when there are several series. */
export function barChart(input: BarChartInput): Html {
  const values = input.series.flatMap((s) => s.values.filter((v): v is number => v !== null))
  const max = input.max ?? Math.max(0, ...values)
  const plotW = WIDTH - PAD.left - PAD.right
  const plotH = HEIGHT - PAD.top - PAD.bottom
  const slot = input.labels.length === 0 ? plotW : plotW / input.labels.length
  const barW = Math.max(1, (slot * 0.8) / Math.max(1, input.series.length))
  const every = Math.ceil(input.labels.length / MAX_LABELS)
  const bars = input.series.flatMap((series, s) =>
    series.values.flatMap((value, i) => {
      if (value === null) return []
      const h = max === 0 ? 0 : (value / max) * plotH
      const x = PAD.left + i * slot + slot * 0.1 + s * barW
      return [html`<rect class="bar series-${s}" x="${r(x)}" y="${r(PAD.top + plotH - h)}" width="${r(barW)}" height="${r(h)}"></rect>`]
    }))
  const labels = input.labels.flatMap((label, i) =>
    i % every === 0 ? [html`<text class="axis" x="${r(PAD.left + i * slot + slot / 2)}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle">${label}</text>`] : [])
  const legend = input.series.length < 2 ? '' : input.series.map((series, s) =>
    html`<rect class="bar series-${s} legend" x="${PAD.left + s * 120}" y="${HEIGHT - 12}" width="10" height="10"></rect><text class="axis" x="${PAD.left + s * 120 + 14}" y="${HEIGHT - 3}">${series.name}</text>`)
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">
<line class="axis-line" x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${WIDTH - PAD.right}" y2="${PAD.top + plotH}"></line>
<text class="axis" x="${PAD.left - 4}" y="${PAD.top + 4}" text-anchor="end">${input.format(max)}</text>
<text class="axis" x="${PAD.left - 4}" y="${PAD.top + plotH}" text-anchor="end">${input.format(0)}</text>
${bars}${labels}${legend}</svg>`
}

export interface HeatMapInput {
  readonly rowLabels: readonly string[]
  readonly columnLabels: readonly string[]
  /** cells[row][column], 0 to 1; null for no data. */
  readonly cells: ReadonlyArray<ReadonlyArray<number | null>>
}

/** A grid of cells whose strength is the value (0 to 1); a cell without data is drawn empty. */
export function heatMap(input: HeatMapInput): Html {
  const left = 40
  const top = 8
  const columns = input.columnLabels.length
  const cell = (WIDTH - left - PAD.right) / Math.max(1, columns)
  const height = top + input.rowLabels.length * cell + 24
  const cells = input.cells.flatMap((row, y) =>
    row.map((value, x) => value === null
      ? html`<rect class="cell empty" x="${r(left + x * cell)}" y="${r(top + y * cell)}" width="${r(cell - 1)}" height="${r(cell - 1)}"></rect>`
      : html`<rect class="cell" x="${r(left + x * cell)}" y="${r(top + y * cell)}" width="${r(cell - 1)}" height="${r(cell - 1)}" fill-opacity="${r(0.08 + 0.92 * value)}"></rect>`))
  const rows = input.rowLabels.map((label, y) => html`<text class="axis" x="${left - 4}" y="${r(top + y * cell + cell * 0.65)}" text-anchor="end">${label}</text>`)
  const cols = input.columnLabels.flatMap((label, x) => x % 3 === 0 ? [html`<text class="axis" x="${r(left + x * cell + cell / 2)}" y="${r(height - 8)}" text-anchor="middle">${label}</text>`] : [])
  return html`<svg class="chart heat" viewBox="0 0 ${WIDTH} ${r(height)}" width="100%" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">
${cells}${rows}${cols}</svg>`
}

/** Coordinates to a tenth of a unit: shorter markup, the same picture. */
function r(n: number): string {
  return String(Math.round(n * 10) / 10)
}
