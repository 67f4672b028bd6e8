/** The server-drawn charts: one bar per value (none for no value), heights in proportion, a cell per heat map value, nothing unescaped. */
import t from 'tap'
import { barChart, heatMap } from '../../../src/http/console/reports/svg-charts.ts'

const rects = (svg: string, cls: string) => [...svg.matchAll(new RegExp(`<rect class="${cls}[^"]*" [^>]*>`, 'g'))].map((m) => m[0])
const attr = (rect: string, name: string) => Number(new RegExp(` ${name}="([^"]+)"`).exec(rect)?.[1])

t.test('bars: one per non-null value, in proportion to the largest', async (t) => {
  const svg = barChart({ labels: ['Mon', 'Tue', 'Wed'], series: [{ name: 'Median', values: [10, null, 40] }, { name: 'p90', values: [20, 0, 80] }], format: (v) => `${v} s` }).text
  t.equal(rects(svg, 'bar series-0').filter((r) => !r.includes('legend')).length, 2, 'no bar for a day without a value')
  t.equal(rects(svg, 'bar series-1').filter((r) => !r.includes('legend')).length, 3)
  const [ten, forty] = rects(svg, 'bar series-0')
  t.equal(attr(forty as string, 'height') / attr(ten as string, 'height'), 4, 'heights in proportion')
  t.match(svg, '>80 s</text>', "the axis' top is the largest value")
  t.match(svg, 'aria-hidden="true"', 'the table beside it is what is read')
  t.notMatch(svg, /style=/, 'no inline style: the CSP forbids it')
})

t.test('bars: all zero draws flat bars, labels escaped and thinned out', async (t) => {
  const labels = Array.from({ length: 30 }, (_, i) => `<d${i}>`)
  const svg = barChart({ labels, series: [{ name: 'Rate', values: labels.map(() => 0) }], format: (v) => `${v} %`, max: 100 }).text
  t.equal(rects(svg, 'bar series-0').length, 30)
  t.ok(rects(svg, 'bar series-0').every((r) => attr(r, 'height') === 0))
  t.notMatch(svg, '<d0>', 'labels are text, escaped')
  t.equal([...svg.matchAll(/&#60;d\d+&#62;/g)].length, 10, 'at most 10 labels')
})

t.test('heat map: a cell per value, its strength the value', async (t) => {
  const cells = [[0, 0.5, null], [1, null, null]]
  const svg = heatMap({ rowLabels: ['Mon', 'Tue'], columnLabels: ['0', '1', '2'], cells }).text
  t.equal(rects(svg, 'cell').length, 6)
  t.equal(rects(svg, 'cell empty').length, 3)
  const full = rects(svg, 'cell').filter((r) => !r.includes('empty'))
  t.same(full.map((r) => attr(r, 'fill-opacity')), [0.1, 0.5, 1], 'a faint floor for 0, full for 1')
})
