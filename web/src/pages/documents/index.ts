// The issued documents (their list and each one's page) and the received ones, one chunk; the
// issuing forms (NewDocument) load on their own.
export { DocumentList } from './DocumentList.tsx';
export { DocumentPage } from './DocumentPage.tsx';
export { ReceivedPage } from '../received/Received.tsx';
