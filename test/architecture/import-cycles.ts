/**
 * Import circles between the modules of `src/` (docs/architecture.md#layers): a module that
 * reaches itself through its imports, `import type` and re-exports included (a type-only circle
 * still ties the modules' meanings together, and one `type` dropped makes it a runtime one).
 * Reads the import statements with the layer check's parser (`layer-rules.ts`).
 */
import { isTestCode, relativeImports, type SourceFile } from './layer-rules.js';

/** The module an import names: `./x.js` is `x.ts` (or `x.tsx`), a folder its `index.ts`. */
function resolveTarget(target: string, paths: ReadonlySet<string>): string | undefined {
  const stem = target.replace(/\.(js|mjs|ts)$/, '');
  return [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, target, `${target}/index.ts`].find((path) =>
    paths.has(path),
  );
}

/** Each module's imports of other modules under `src/` (shipped code only: tests are leaves). */
export function moduleGraph(files: SourceFile[]): Map<string, string[]> {
  const shipped = files.filter((file) => !isTestCode(file.path));
  const paths = new Set(shipped.map((file) => file.path));
  const graph = new Map<string, string[]>();
  for (const file of shipped) {
    const targets = relativeImports(file)
      .map(({ target }) => resolveTarget(target, paths))
      .filter((target): target is string => target !== undefined);
    graph.set(file.path, [...new Set(targets)]);
  }
  return graph;
}

/**
 * Every import circle, as one path around it (`a.ts -> b.ts -> a.ts`), one per strongly
 * connected group of modules (Tarjan's algorithm, iterative: no recursion depth limit).
 */
export function findImportCycles(files: SourceFile[]): string[] {
  const graph = moduleGraph(files);
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let counter = 0;
  for (const start of [...graph.keys()].sort()) {
    if (order.has(start)) continue;
    const frames: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    order.set(start, counter);
    lowest.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as { node: string; next: number };
      const targets = graph.get(frame.node) ?? [];
      const target = targets[frame.next++];
      if (target !== undefined) {
        if (!order.has(target)) {
          order.set(target, counter);
          lowest.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          frames.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          lowest.set(frame.node, Math.min(lowest.get(frame.node) ?? 0, order.get(target) ?? 0));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) {
        lowest.set(
          parent.node,
          Math.min(lowest.get(parent.node) ?? 0, lowest.get(frame.node) ?? 0),
        );
      }
      if (lowest.get(frame.node) !== order.get(frame.node)) continue;
      const group: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.node);
      if (group.length > 1 || targets.includes(frame.node)) groups.push(group);
    }
  }
  return groups.map((group) => cyclePath(graph, new Set(group))).sort();
}

/** A shortest way round a group, from its first module by name back to it. */
function cyclePath(graph: Map<string, string[]>, group: ReadonlySet<string>): string {
  const first = [...group].sort()[0] as string;
  const previous = new Map<string, string>();
  const queue = [first];
  for (let index = 0; index < queue.length; index++) {
    const node = queue[index] as string;
    for (const target of graph.get(node) ?? []) {
      if (!group.has(target)) continue;
      if (target === first) {
        const path = [first];
        for (let step: string | undefined = node; step !== undefined && step !== first; ) {
          path.splice(1, 0, step);
          step = previous.get(step);
        }
        return [...path, first].join(' -> ');
      }
      if (previous.has(target)) continue;
      previous.set(target, node);
      queue.push(target);
    }
  }
  return [...group].sort().join(' -> ');
}
