/** Commander's accumulator for a repeatable option (`--set a=1 --set b=2`). */
export const collect = (v: string, prev: string[]) => [...prev, v];
