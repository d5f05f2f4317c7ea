/**
 * Is `code` what open(2) with O_NOFOLLOW says when the last component is a
 * symlink? ELOOP on Linux and macOS; FreeBSD says EMLINK, NetBSD EFTYPE.
 */
export function isSymlinkRefusal(code: string | undefined, platform: NodeJS.Platform): boolean {
  if (code === 'ELOOP') return true;
  if (platform === 'freebsd') return code === 'EMLINK';
  if (platform === 'netbsd') return code === 'EFTYPE';
  return false;
}
