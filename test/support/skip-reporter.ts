import type { Reporter, TestModule } from 'vitest/node';

/**
 * Lists every skipped test at the end of a run with the reason it gave ({@link skipWhen}'s, or
 * `context.skip(reason)`'s), so a skip is never silent: the default reporter only counts them.
 */
export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const module of modules)
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped' || test.options.mode === 'todo') continue;
        const reason = result.note ?? test.meta().skipReason ?? 'NO REASON GIVEN';
        lines.push(
          `  ${test.project.name} ${module.relativeModuleId} > ${test.fullName}: ${reason}`,
        );
      }
    if (lines.length === 0) return;
    process.stdout.write(`\nSkipped tests (${lines.length}), and why:\n${lines.join('\n')}\n`);
  }
}
