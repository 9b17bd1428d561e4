/** The 2 KB write_file content of the activity benchmark's calls: its last digits vary with `i`. */
const line = 'const value = 42 // some code on a line\n'

export const writeFileBody = (i: number): string =>
  line.repeat(50).slice(0, 2040) + String(i % 10).padStart(8, '0')
