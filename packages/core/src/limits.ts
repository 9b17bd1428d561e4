/**
 * Workspace limits (seed 000's set). Checked before anything is written, so
 * a violation changes nothing. Defaults are generous; pass smaller ones for
 * untrusted agents.
 */
export interface FileSystemLimits {
  /** Largest file, bytes. EFBIG beyond. */
  maxFileSize: number
  /** Sum of all file sizes (trash included), bytes. ENOSPC beyond. */
  maxTotalSize: number
  /** Deepest path, in components. EINVAL beyond. */
  maxPathDepth: number
  /**
   * Longest name, UTF-8 bytes. ENAMETOOLONG beyond. At most `MAX_NAME_BYTES` (255, names.ts):
   * a larger value counts as 255, since servers refuse rows with longer names.
   */
  maxNameLength: number
  /** Most rows (files, folders, symlinks, trash included). ENOSPC beyond. */
  maxNodeCount: number
  /** Longest path, UTF-8 bytes. ENAMETOOLONG beyond. */
  maxPathLength: number
}

export const DEFAULT_LIMITS: FileSystemLimits = {
  maxFileSize: 100 * 1024 * 1024,
  maxTotalSize: 10 * 1024 * 1024 * 1024,
  maxPathDepth: 256,
  maxNameLength: 255,
  maxNodeCount: 1_000_000,
  maxPathLength: 4096,
}
