/**
 * The reporter of `npm test`: vitest's default reporter without its list of passing files, so a
 * passing run prints the summary (files, tests, duration) and nothing else. Everything else is the
 * default reporter's: a failing file is listed with its failed tests, then each failure in full;
 * console output of tests and unhandled errors are printed as usual. A skipped test is always
 * listed with its reason, in a passing file too (the default reporter lists it only when the run
 * has a single file or the file failed), so that nothing is skipped without saying why.
 */
import { DefaultReporter, type TestModule } from 'vitest/node';

export default class SummaryReporter extends DefaultReporter {
  protected override printTestModule(testModule: TestModule): void {
    if (testModule.state() === 'failed') {
      super.printTestModule(testModule);
      return;
    }
    for (const test of testModule.children.allTests('skipped')) {
      const result = test.result();
      const note = result.state === 'skipped' ? result.note : undefined;
      const reason = test.options.mode === 'todo' ? 'todo' : (note ?? 'no reason given');
      this.log(` ↓ ${testModule.relativeModuleId} > ${test.fullName} [${reason}]`);
    }
  }
}
