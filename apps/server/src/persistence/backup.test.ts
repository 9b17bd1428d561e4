// The backup file format: a round trip, and every way a file can be wrong refused with EINVAL
// (each bad file here carries a correct checksum, so the check behind the digest is the one hit).
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { BackupError, decodeBackup, encodeBackup, toBackupDocuments, toStoredDocuments } from './backup.js'

const state = (text: string) => {
  const doc = new Y.Doc()
  doc.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(doc)
}

/** A file of these lines with a trailer that matches them (digest and counts as given). */
function file(lines: unknown[], trailer: Record<string, unknown> = {}): Buffer {
  const body = Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
  const sha256 = createHash('sha256').update(body).digest('hex')
  return Buffer.concat([
    body,
    Buffer.from(
      `${JSON.stringify({ end: true, documents: lines.length - 1, bytes: 0, sha256, ...trailer })}\n`,
    ),
  ])
}

const header = (documents: number, version = 1) => ({
  format: 'yfs-backup',
  version,
  workspace: 'w',
  createdAt: new Date(0).toISOString(),
  store: 'sqlite',
  documents,
})

describe('backup format', () => {
  it('round-trips documents under another workspace id', () => {
    const stored = [
      { name: 'team/f1', state: state('content') },
      { name: 'team', state: state('main') },
    ]
    const bytes = encodeBackup({ workspace: 'team', store: 'sqlite' }, toBackupDocuments('team', stored))
    const backup = decodeBackup(bytes)
    expect(backup.header).toMatchObject({ format: 'yfs-backup', version: 1, workspace: 'team', documents: 2 })
    expect(backup.documents.map((d) => d.doc)).toEqual(['', 'f1'])
    expect(toStoredDocuments('copy', backup.documents)).toEqual([
      { name: 'copy', state: stored[1]!.state },
      { name: 'copy/f1', state: stored[0]!.state },
    ])
  })

  it('refuses empty, truncated, corrupted and malformed files', () => {
    const good = encodeBackup({ workspace: 'w', store: 'sqlite' }, [{ doc: '', state: state('x') }])
    // One update for both: a doc's random client id makes update lengths differ between docs.
    const update = state('x')
    const s = Buffer.from(update).toString('base64')
    const n = update.byteLength
    const cases: [Uint8Array, RegExp][] = [
      [Buffer.alloc(0), /empty/],
      [good.subarray(0, good.byteLength - 1), /truncated/],
      [good.subarray(0, good.indexOf('\n') + 1), /truncated/],
      [Buffer.from(good.toString().replace('"workspace":"w"', '"workspace":"v"')), /checksum/],
      [file([header(1, 2), { doc: '', state: s }], { bytes: n }), /format version 2/],
      [
        file(
          [
            { ...header(1), format: 'tar' },
            { doc: '', state: s },
          ],
          { bytes: n },
        ),
        /unknown format/,
      ],
      [file([header(2), { doc: '', state: s }], { bytes: n }), /header says 2/],
      [file([header(2), { doc: '', state: s }, { doc: '', state: s }], { bytes: 2 * n }), /twice/],
      [file([header(1), { doc: '../x', state: s }], { bytes: n }), /bad document name/],
      [file([header(1), { doc: '', state: 'BQE=' }], { bytes: 2 }), /not a Yjs update/],
      [file([header(1), { doc: '', state: '***' }], { bytes: n }), /not a document/],
      [file([header(1), { doc: '', state: s }], { bytes: n + 1 }), /bytes of documents/],
      [file([header(1), 'text'], { bytes: n }), /not a JSON object/],
    ]
    for (const [bytes, why] of cases) {
      let error: unknown
      try {
        decodeBackup(bytes)
      } catch (e) {
        error = e
      }
      expect(error, String(why)).toBeInstanceOf(BackupError)
      expect((error as BackupError).code).toBe('EINVAL')
      expect((error as BackupError).message).toMatch(why)
    }
  })
})
