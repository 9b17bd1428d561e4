/**
 * Registers the service worker (`public/sw.js`) that keeps the app's own
 * files on this device, so the page loads when the server is down and the
 * workspace opens from IndexedDB. Without service workers (an insecure
 * origin other than localhost, or a browser setting) the app still works
 * online; only the offline start is lost.
 */

/** Register `/sw.js`; resolves `true` when a service worker is active or installing. */
export async function registerOfflineApp(): Promise<boolean> {
  if (!('serviceWorker' in navigator)) return false
  try {
    await navigator.serviceWorker.register('/sw.js', { scope: '/' })
    return true
  } catch (error) {
    // Refused (private mode, policy): the app works online without it; say so without an error.
    console.info('offline start unavailable:', error instanceof Error ? error.message : String(error))
    return false
  }
}
