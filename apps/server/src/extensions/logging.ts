/**
 * Logging extension: one structured line per document connection opened or
 * closed and per document loaded or unloaded (debug level for the latter).
 */
import type {
  afterLoadDocumentPayload,
  afterUnloadDocumentPayload,
  connectedPayload,
  Extension,
  onDisconnectPayload,
} from '@hocuspocus/server'
import type { Logger } from '../logger.js'
import type { YfsContext } from './auth.js'

export function createLoggingExtension(logger: Logger): Extension {
  return {
    extensionName: 'yfs-logging',
    async connected({ documentName, socketId, context }: connectedPayload) {
      logger.debug('doc connected', {
        doc: documentName,
        socketId,
        role: (context as YfsContext).grant?.role,
      })
    },
    async onDisconnect({ documentName, socketId, clientsCount }: onDisconnectPayload) {
      logger.debug('doc disconnected', { doc: documentName, socketId, clients: clientsCount })
    },
    async afterLoadDocument({ documentName }: afterLoadDocumentPayload) {
      logger.debug('doc loaded', { doc: documentName })
    },
    async afterUnloadDocument({ documentName }: afterUnloadDocumentPayload) {
      logger.debug('doc unloaded', { doc: documentName })
    },
  }
}
