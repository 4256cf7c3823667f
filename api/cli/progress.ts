import cliProgress from 'cli-progress';
import type { IndexPhase, IndexProgress } from '../../pipeline/index/indexer.ts';

const LABELS: Record<IndexPhase, string> = { chunk: 'chunking ', embed: 'embedding', write: 'writing  ' };

/**
 * Progress for `cita index`: a bar on a terminal; elsewhere (CI, pipes) a line every few seconds,
 * so logs stay readable and a long run still shows it is alive.
 */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr): {
  update: (p: IndexProgress) => void;
  stop: () => void;
} {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: '{phase} [{bar}] {value}/{total} {eta_formatted} {item}', hideCursor: true, clearOnComplete: false, stream },
      cliProgress.Presets.shades_classic,
    );
    let phase: IndexPhase | undefined;
    return {
      update(p) {
        if (p.phase !== phase) {
          if (phase) bar.stop();
          phase = p.phase;
          bar.start(p.total, p.done, { phase: LABELS[p.phase], item: '' });
        }
        bar.setTotal(p.total);
        bar.update(p.done, { item: (p.item ?? '').slice(-40) });
      },
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  let lastPhase: IndexPhase | undefined;
  return {
    update(p) {
      const now = Date.now();
      const finished = p.done === p.total;
      if (p.phase !== lastPhase || finished || now - last > 5000) {
        if (p.phase === lastPhase && finished && now - last < 50) return;
        stream.write(`${LABELS[p.phase].trim()}: ${p.done}/${p.total}${p.item ? ` ${p.item}` : ''}\n`);
        last = now;
        lastPhase = p.phase;
      }
    },
    stop() {},
  };
}
