import type { ScalingResult } from './scaling.js';

const W = 760;
const H = 460;
const M = { left: 76, right: 200, top: 64, bottom: 70 };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const f = (x: number) => x.toFixed(1);

function label(v: number, unit: string): string {
  if (v >= 1000) return `${(v / 1000).toLocaleString('en-US')}k${unit}`;
  return `${v}${unit}`;
}

interface Series {
  name: string;
  color: string;
  dash?: string;
  shape: 'circle' | 'square' | 'triangle';
  points: Array<[number, number]>;
}

/** A log-log chart of claim and reap time against board size, as a standalone SVG document. */
export function scalingSvg(s: ScalingResult, caption: readonly string[]): string {
  const series: Series[] = [
    { name: 'claim p50', color: '#1f6feb', shape: 'circle', points: s.sizes.map((x) => [x.tasks, x.claimP50Ms]) },
    { name: 'claim p99', color: '#1f6feb', dash: '6 4', shape: 'triangle', points: s.sizes.map((x) => [x.tasks, x.claimP99Ms]) },
    { name: 'reap (10% stale)', color: '#d1242f', shape: 'square', points: s.sizes.map((x) => [x.tasks, x.reapMedianMs]) },
  ];
  const goals: Array<{ x: number; y: number; text: string }> = [
    { x: 10_000, y: 2, text: 'claim p50 ≤ 2 ms' },
    { x: 100_000, y: 20, text: 'claim p50 ≤ 20 ms' },
    { x: 10_000, y: 20, text: 'reap ≤ 20 ms' },
  ];
  const xs = s.sizes.map((x) => x.tasks);
  const ys = [...series.flatMap((x) => x.points.map((p) => p[1])), ...goals.map((g) => g.y)].filter((v) => v > 0);
  const x0 = Math.floor(Math.log10(Math.min(...xs)));
  const x1 = Math.ceil(Math.log10(Math.max(...xs)));
  const y0 = Math.floor(Math.log10(Math.min(...ys)));
  const y1 = Math.ceil(Math.log10(Math.max(...ys)));
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const px = (v: number) => M.left + ((Math.log10(v) - x0) / Math.max(1, x1 - x0)) * pw;
  const py = (v: number) => M.top + ph - ((Math.log10(v) - y0) / Math.max(1, y1 - y0)) * ph;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="12">`);
  out.push(`<defs><clipPath id="plot"><rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}"/></clipPath></defs>`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${M.left}" y="22" font-size="15" font-weight="600">mdclaim: claim and reap time against board size (log-log)</text>`);
  caption.slice(0, 2).forEach((line, i) => out.push(`<text x="${M.left}" y="${38 + i * 15}" fill="#57606a">${esc(line)}</text>`));
  // Grid: a line per decade, fainter ones at 2…9 within it.
  for (let d = x0; d <= x1; d++) {
    for (let m = 1; m < 10 && (m === 1 || d < x1); m++) {
      const x = px(m * 10 ** d);
      out.push(`<line x1="${f(x)}" y1="${M.top}" x2="${f(x)}" y2="${M.top + ph}" stroke="${m === 1 ? '#d0d7de' : '#f0f2f4'}"/>`);
    }
    const kib = s.sizes.find((z) => z.tasks === 10 ** d)?.claimBoardKiB;
    out.push(`<text x="${f(px(10 ** d))}" y="${M.top + ph + 18}" text-anchor="middle">${label(10 ** d, '')}</text>`);
    if (kib !== undefined) {
      out.push(`<text x="${f(px(10 ** d))}" y="${M.top + ph + 32}" text-anchor="middle" fill="#57606a" font-size="10">${kib >= 1024 ? `${(kib / 1024).toFixed(1)} MiB` : `${Math.round(kib)} KiB`}</text>`);
    }
  }
  for (let d = y0; d <= y1; d++) {
    for (let m = 1; m < 10 && (m === 1 || d < y1); m++) {
      const y = py(m * 10 ** d);
      out.push(`<line x1="${M.left}" y1="${f(y)}" x2="${M.left + pw}" y2="${f(y)}" stroke="${m === 1 ? '#d0d7de' : '#f0f2f4'}"/>`);
    }
    const v = 10 ** d;
    out.push(`<text x="${M.left - 8}" y="${f(py(v) + 4)}" text-anchor="end">${v >= 1 ? v.toLocaleString('en-US') : v.toFixed(-d)}</text>`);
  }
  out.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#8c959f"/>`);
  out.push(`<text x="${M.left + pw / 2}" y="${H - 14}" text-anchor="middle">tasks on the board (claim board size below)</text>`);
  out.push(`<text transform="translate(18 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">milliseconds</text>`);
  // Slope-1 guide through the largest board's claim p50: a linear cost runs parallel to it.
  const last = s.sizes.at(-1);
  if (last) {
    const a = 10 ** x0;
    const b = 10 ** x1;
    const at = (x: number) => last.claimP50Ms * (x / last.tasks);
    out.push(`<line x1="${f(px(a))}" y1="${f(py(at(a)))}" x2="${f(px(b))}" y2="${f(py(at(b)))}" stroke="#8c959f" stroke-dasharray="2 3" clip-path="url(#plot)"/>`);
  }
  for (const g of goals) {
    if (g.x < 10 ** x0 || g.x > 10 ** x1) continue;
    const x = px(g.x);
    const y = py(g.y);
    out.push(`<path d="M${f(x - 6)} ${f(y)} L${f(x + 6)} ${f(y)} M${f(x)} ${f(y - 6)} L${f(x)} ${f(y + 6)}" stroke="#6e7781" stroke-width="1.5"/>`);
    // A white halo keeps the label readable where a series line crosses it.
    out.push(`<text x="${f(x - 9)}" y="${f(y + 4)}" text-anchor="end" fill="#57606a" font-size="10" stroke="#ffffff" stroke-width="3" paint-order="stroke">${esc(g.text)}</text>`);
  }
  for (const sr of series) {
    const pts = sr.points.filter((p) => p[1] > 0);
    out.push(`<polyline fill="none" stroke="${sr.color}" stroke-width="2"${sr.dash ? ` stroke-dasharray="${sr.dash}"` : ''} points="${pts.map((p) => `${f(px(p[0]))},${f(py(p[1]))}`).join(' ')}"/>`);
    for (const p of pts) out.push(marker(sr, px(p[0]), py(p[1])));
  }
  // Legend to the right of the plot.
  const lx = M.left + pw + 18;
  series.forEach((sr, i) => {
    const y = M.top + 14 + i * 22;
    out.push(`<line x1="${lx}" y1="${y}" x2="${lx + 28}" y2="${y}" stroke="${sr.color}" stroke-width="2"${sr.dash ? ` stroke-dasharray="${sr.dash}"` : ''}/>`);
    out.push(marker(sr, lx + 14, y));
    out.push(`<text x="${lx + 36}" y="${y + 4}">${esc(sr.name)}</text>`);
  });
  const gy = M.top + 14 + series.length * 22;
  out.push(`<line x1="${lx}" y1="${gy}" x2="${lx + 28}" y2="${gy}" stroke="#8c959f" stroke-dasharray="2 3"/>`);
  out.push(`<text x="${lx + 36}" y="${gy + 4}">linear (slope 1)</text>`);
  out.push(`<path d="M${lx + 8} ${gy + 22} L${lx + 20} ${gy + 22} M${lx + 14} ${gy + 16} L${lx + 14} ${gy + 28}" stroke="#6e7781" stroke-width="1.5"/>`);
  out.push(`<text x="${lx + 36}" y="${gy + 26}">goal</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function marker(sr: Series, x: number, y: number): string {
  switch (sr.shape) {
    case 'circle':
      return `<circle cx="${f(x)}" cy="${f(y)}" r="4" fill="${sr.color}"/>`;
    case 'square':
      return `<rect x="${f(x - 4)}" y="${f(y - 4)}" width="8" height="8" fill="${sr.color}"/>`;
    case 'triangle':
      return `<path d="M${f(x)} ${f(y - 5)} L${f(x + 5)} ${f(y + 4)} L${f(x - 5)} ${f(y + 4)} Z" fill="#ffffff" stroke="${sr.color}" stroke-width="1.5"/>`;
  }
}
