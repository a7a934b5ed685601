import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('./apt-mirror', import.meta.url));

/** Runs scripts/apt-mirror against an apt configuration directory made of `files`. */
function mirrorOf(files: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const etc = mkdtempSync(join(tmpdir(), 'gear-apt-'));
  mkdirSync(join(etc, 'sources.list.d'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(etc, name), text);
  const run = spawnSync('bash', [script], { env: { ...process.env, GEAR_APT_ETC: etc }, encoding: 'utf8' });
  rmSync(etc, { recursive: true, force: true });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}

describe('scripts/apt-mirror: the Debian archive of the machine apt configuration', () => {
  it('reads the first deb line of a release suite from sources.list, skipping deb-src, options and security pockets', () => {
    const run = mirrorOf({
      'sources.list': [
        '# a comment',
        'deb-src http://src.example.org/debian bookworm main',
        'deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://security.example.org/debian-security bookworm-security main',
        'deb http://archive.example.org/debian/ bookworm main contrib',
      ].join('\n'),
    });
    expect(run).toMatchObject({ status: 0, stdout: 'http://archive.example.org/debian' });
  });

  it('reads deb822 .sources files, skipping disabled stanzas and update pockets', () => {
    const run = mirrorOf({
      'sources.list.d/debian.sources': [
        'Types: deb',
        'URIs: http://security.example.org/debian-security',
        'Suites: bookworm-security',
        '',
        'Types: deb deb-src',
        'Enabled: no',
        'URIs: http://off.example.org/debian',
        'Suites: bookworm',
        '',
        '# the archive',
        'Types: deb',
        'URIs: https://archive.example.net/debian/',
        'Suites: bookworm bookworm-updates',
        'Components: main',
      ].join('\n'),
    });
    expect(run).toMatchObject({ status: 0, stdout: 'https://archive.example.net/debian' });
  });

  it('prefers sources.list over sources.list.d', () => {
    const run = mirrorOf({
      'sources.list': 'deb http://first.example.org/debian bookworm main\n',
      'sources.list.d/other.sources': 'Types: deb\nURIs: http://second.example.org/debian\nSuites: bookworm\n',
    });
    expect(run.stdout).toBe('http://first.example.org/debian');
  });

  it('fails naming where it looked when no source is configured', () => {
    const run = mirrorOf({ 'sources.list': 'deb-src http://src.example.org/debian bookworm main\n' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('sources.list.d/*.sources');
  });
});
