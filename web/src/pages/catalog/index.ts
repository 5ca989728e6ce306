// The company's catalogues: clients and services, one chunk.
export { Clients } from './Clients.tsx';
export { Services } from './Services.tsx';
