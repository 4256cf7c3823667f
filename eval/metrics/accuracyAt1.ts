import { distinct } from './recallAtK.ts';

/**
 * Acc@1: 1 when the first retrieved item is relevant, else 0 (averaged over questions, the share of
 * questions whose top answer is right). Duplicates collapse first, as in `recallAtK`.
 */
export function accuracyAt1(ranked: string[], relevant: string[]): number {
  const [top] = distinct(ranked);
  return top !== undefined && relevant.includes(top) ? 1 : 0;
}
