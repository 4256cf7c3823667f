#!/usr/bin/env bash
# promptfoo evaluation of cita, offline: installs promptfoo into eval/promptfoo if missing, runs
# promptfooconfig.yaml, writes reports/promptfoo/{results.json,results.html,summary.md}.
#
#   bash eval/promptfoo/run.sh [--sample N|all] [--instance NAME] [--mode inprocess|cli]
#                              [--judge PROVIDER] [any promptfoo eval option…]
#   npm run eval:promptfoo -- --sample all
#
# Exit code: 0 when every test passes, 100 when a citation or faithfulness assertion failed
# (PROMPTFOO_FAILED_TEST_EXIT_CODE=0 to report only), anything else on an error.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${CITA_PROMPTFOO_OUT:-$ROOT/reports/promptfoo}"

passthrough=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sample) export CITA_PROMPTFOO_SAMPLE="$2"; shift 2 ;;
    --sample=*) export CITA_PROMPTFOO_SAMPLE="${1#*=}"; shift ;;
    --instance) export CITA_INSTANCE="$2"; shift 2 ;;
    --instance=*) export CITA_INSTANCE="${1#*=}"; shift ;;
    --mode) export CITA_PROMPTFOO_MODE="$2"; shift 2 ;;
    --mode=*) export CITA_PROMPTFOO_MODE="${1#*=}"; shift ;;
    --judge) export CITA_JUDGE_PROVIDER="$2"; shift 2 ;;
    --judge=*) export CITA_JUDGE_PROVIDER="${1#*=}"; shift ;;
    --) shift; passthrough+=("$@"); break ;;
    *) passthrough+=("$1"); shift ;;
  esac
done

# Install the pinned promptfoo (package-lock.json) when it is missing or not the pinned version.
want="$(node -p "require('$HERE/package.json').dependencies.promptfoo")"
have="$(node -p "try { require('$HERE/node_modules/promptfoo/package.json').version } catch { '' }")"
if [[ "$have" != "$want" ]]; then
  echo "run.sh: installing promptfoo $want into eval/promptfoo (npm ci, ~1.9 GB, a few minutes)" >&2
  (cd "$HERE" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
fi

# Offline and private: no telemetry, update checks, sharing or remote (cloud) generation; the
# results database lives under reports/promptfoo, not in ~/.promptfoo.
export PROMPTFOO_DISABLE_TELEMETRY=1
export PROMPTFOO_DISABLE_UPDATE=1
export PROMPTFOO_DISABLE_SHARING=1
export PROMPTFOO_DISABLE_SHARE_EMAIL_REQUEST=1
export PROMPTFOO_DISABLE_REMOTE_GENERATION=1
export PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION=1
export PROMPTFOO_CONFIG_DIR="${PROMPTFOO_CONFIG_DIR:-$OUT/.promptfoo}"
export CITA_ROOT="$ROOT"

mkdir -p "$OUT"
# Generated output: keep it out of git.
[[ -f "$OUT/.gitignore" ]] || printf '# written by eval/promptfoo/run.sh\n*\n' > "$OUT/.gitignore"

started=$(date +%s)
set +e
"$HERE/node_modules/.bin/promptfoo" eval \
  --config "$HERE/promptfooconfig.yaml" \
  --output "$OUT/results.json" "$OUT/results.html" \
  --no-share --no-progress-bar --table-cell-max-length 80 \
  "${passthrough[@]}"
code=$?
set -e
echo "run.sh: promptfoo eval finished in $(( $(date +%s) - started )) s with exit code $code" >&2
[[ -f "$OUT/results.json" ]] || exit "$code"

# Pass rate of every assertion, overall and per language, from promptfoo's JSON output.
node --input-type=module - "$OUT/results.json" "$OUT/summary.md" <<'EOF'
import fs from 'node:fs';
const [file, mdFile] = process.argv.slice(2);
const { results } = JSON.parse(fs.readFileSync(file, 'utf8'));
const rows = results.results;
const langs = [...new Set(rows.map((r) => r.testCase?.metadata?.lang ?? '?'))].sort();
const stats = new Map(); // metric -> lang -> [passed, n]
const add = (metric, lang, ok) => {
  if (!stats.has(metric)) stats.set(metric, new Map());
  const m = stats.get(metric);
  for (const k of [lang, 'all']) {
    const s = m.get(k) ?? [0, 0];
    s[0] += ok ? 1 : 0;
    s[1] += 1;
    m.set(k, s);
  }
};
let errors = 0;
for (const r of rows) {
  const lang = r.testCase?.metadata?.lang ?? '?';
  add('test passed (all enforced assertions)', lang, r.success);
  if (r.error && !r.gradingResult) errors++;
  for (const c of r.gradingResult?.componentResults ?? []) {
    const metric = c.assertion?.metric ?? c.assertion?.type ?? '?';
    // Report-only assertions always pass; their score (1 = found) is what counts.
    add(metric, lang, metric.includes('report only') ? c.score >= 1 : c.pass);
  }
}
const meta = rows.map((r) => r.response?.metadata).filter(Boolean);
// An explicit no-answer passes (a) and (b) with nothing to check: say how many answers had substance.
const answered = rows.filter((r) => r.response?.metadata && !r.response.metadata.noAnswer);
const answeredPass = (fn) => answered.filter((r) => (r.gradingResult?.componentResults ?? []).some((c) => fn(c.assertion?.value ?? '') && c.pass)).length;
const gens = [...new Set(meta.map((m) => m.generator))].join(', ');
const noAnswers = meta.filter((m) => m.noAnswer).length;
const lat = rows.map((r) => r.latencyMs ?? r.response?.latencyMs).filter((x) => typeof x === 'number').sort((a, b) => a - b);
const pct = (s) => (s ? `${((100 * s[0]) / s[1]).toFixed(1)}% (${s[0]}/${s[1]})` : '–');
const lines = [
  `# promptfoo: cita on ${meta[0]?.instance ?? '?'} (${rows.length} questions; generator ${gens || '?'}; mode ${meta[0]?.mode ?? '?'})`,
  '',
  `| assertion | ${['all', ...langs].join(' | ')} |`,
  `|---|${['all', ...langs].map(() => '---:').join('|')}|`,
  ...[...stats].map(([metric, m]) => `| ${metric} | ${['all', ...langs].map((l) => pct(m.get(l))).join(' | ')} |`),
  '',
  `explicit no-answers: ${noAnswers}/${meta.length}; provider errors: ${errors}; latency per question: median ${lat[Math.floor(lat.length / 2)] ?? '–'} ms, max ${lat.at(-1) ?? '–'} ms`,
  `answered (not a no-answer): ${answered.length}; of those, citations verified ${answeredPass((v) => v.endsWith(':citationsVerified'))}/${answered.length}, every sentence supported ${answeredPass((v) => v.endsWith(':sentencesSupported'))}/${answered.length}`,
  `session open (index + model + generator, once): ${meta[0]?.sessionOpenMs ?? '–'} ms`,
];
fs.writeFileSync(mdFile, `${lines.join('\n')}\n`);
process.stdout.write(`\n${lines.join('\n')}\n\nwritten: ${file}, ${file.replace(/\.json$/, '.html')}, ${mdFile}\n`);
EOF
exit "$code"
