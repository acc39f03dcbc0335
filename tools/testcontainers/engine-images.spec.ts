import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { engineImages } from '@commerce/shared-testing';

// The names tools/image/engines builds are the names the harness starts (and the local overlay runs): a rename on
// one side only would send testcontainers to a registry this machine cannot reach.
describe('the engine images built here', () => {
  it('are the images the test harness starts, and the SMTP sink', () => {
    const built = execFileSync(join(__dirname, '..', 'image', 'engines'), ['--list'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(built.sort()).toEqual([...Object.values(engineImages), 'localhost/commerce-smtp-sink:1'].sort());
  });
});
