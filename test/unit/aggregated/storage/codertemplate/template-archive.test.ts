// Template sources as tar archives: what GNU tar reads back, path rules, spec.files,
// and the merge that keeps binary files and file modes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  filesOf,
  mergeEntries,
  normalizeArchivePath,
  normalizeFiles,
  readTar,
  sameFiles,
  writeTar,
} from '../../../../../src/aggregated/storage/codertemplate/template-archive.ts';
import { tempDir } from '../../../../harness/temp-dir.ts';

const binary = Buffer.from([0x80, 0x81, 0x82]);
const longPath = `modules/${'deep/'.repeat(25)}main.tf`;

describe('template archives', () => {
  it('writes tar that GNU tar extracts, long paths and modes included', () => {
    const dir = tempDir('tar');
    const archive = writeTar([
      { path: 'main.tf', mode: 0o755, data: Buffer.from('resource "null_resource" "a" {}\n') },
      { path: longPath, mode: 0o644, data: Buffer.from('# deep\n') },
      { path: 'bin/tool', mode: 0o644, data: binary },
    ]);
    writeFileSync(join(dir, 'a.tar'), archive);
    execFileSync('tar', ['-xf', 'a.tar'], { cwd: dir });
    assert.equal(readFileSync(join(dir, 'main.tf'), 'utf8'), 'resource "null_resource" "a" {}\n');
    assert.equal(statSync(join(dir, 'main.tf')).mode & 0o777, 0o755);
    assert.equal(readFileSync(join(dir, longPath), 'utf8'), '# deep\n');
    assert.deepEqual(readFileSync(join(dir, 'bin/tool')), binary);
  });

  it('reads what GNU tar wrote, skipping directories', () => {
    const dir = tempDir('tar');
    execFileSync('mkdir', ['-p', join(dir, 'src', 'sub')]);
    writeFileSync(join(dir, 'src', 'main.tf'), 'a\n');
    writeFileSync(join(dir, 'src', 'sub', 'x.sh'), 'b\n');
    writeFileSync(join(dir, 'src', longPath.replaceAll('/', '_')), 'c\n');
    execFileSync('tar', ['--format=pax', '-cf', '../a.tar', '.'], { cwd: join(dir, 'src') });
    const entries = readTar(readFileSync(join(dir, 'a.tar')));
    assert.deepEqual(filesOf(entries), { 'main.tf': 'a\n', 'sub/x.sh': 'b\n', [longPath.replaceAll('/', '_')]: 'c\n' });
  });

  it('refuses a damaged archive', () => {
    const archive = writeTar([{ path: 'main.tf', mode: 0o644, data: Buffer.from('x') }]);
    archive[10] = 0x41;
    assert.throws(() => readTar(archive), /damaged header at byte 0/);
  });

  for (const [path, want] of [
    ['main.tf', 'main.tf'],
    ['./main.tf', 'main.tf'],
    ['a//b/./c.tf', 'a/b/c.tf'],
    ['dir/', 'dir'],
  ] as const)
    it(`normalizes "${path}" to "${want}"`, () => assert.equal(normalizeArchivePath(path), want));

  for (const [path, why] of [
    ['', /must not be empty/],
    ['/etc/passwd', /must be relative/],
    ['../x.tf', /must not contain "\.\."/],
    ['a/../../x.tf', /must not contain "\.\."/],
    ['a\\b.tf', /must not contain "\\"/],
    ['.', /names no file/],
  ] as const)
    it(`refuses the path "${path}"`, () => assert.throws(() => normalizeArchivePath(path), why));

  it('refuses two keys of spec.files that name one path', () => {
    assert.throws(() => normalizeFiles({ 'main.tf': 'a', './main.tf': 'b' }), /two keys for path "main\.tf"/);
    assert.throws(() => normalizeFiles({ 'main.tf': 1 }), /spec\.files\["main\.tf"\] must be a string/);
  });

  it('shows only UTF-8 files, and compares spec.files after normalizing paths', () => {
    const entries = [
      { path: 'main.tf', mode: 0o755, data: Buffer.from('a') },
      { path: 'binary.dat', mode: 0o644, data: binary },
    ];
    assert.deepEqual(filesOf(entries), { 'main.tf': 'a' });
    assert.ok(sameFiles(normalizeFiles({ './main.tf': 'a' }), filesOf(entries)));
    assert.ok(!sameFiles(normalizeFiles({ 'main.tf': 'b' }), filesOf(entries)));
    assert.ok(!sameFiles(normalizeFiles({ 'main.tf': 'a', 'extra.tf': '' }), filesOf(entries)));
  });

  it('merges: keeps binary files and modes, drops text files left out of spec.files', () => {
    const current = [
      { path: 'main.tf', mode: 0o755, data: Buffer.from('old') },
      { path: 'old.tf', mode: 0o644, data: Buffer.from('gone') },
      { path: 'binary.dat', mode: 0o600, data: binary },
    ];
    const merged = readTar(writeTar(mergeEntries(normalizeFiles({ 'main.tf': 'new', 'add.tf': 'added' }), current)));
    assert.deepEqual(
      merged.map((e) => [e.path, e.mode, e.data.toString('hex')]),
      [
        ['add.tf', 0o644, Buffer.from('added').toString('hex')],
        ['binary.dat', 0o600, '808182'],
        ['main.tf', 0o755, Buffer.from('new').toString('hex')],
      ],
    );
  });
});
