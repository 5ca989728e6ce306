// The processes of `npm start` end with their parent. A parent killed with SIGKILL runs no handler
// and tells its children nothing; a child then finds itself re-parented (its parent process id
// changes, to init or a subreaper) and sends itself SIGTERM, its ordinary way to stop, within a
// second. Loaded with `--import` into the processes `npm start` runs (API, workers, simulator, mail
// catcher), which are told its process id (FACTURA_START_PID: a parent gone before this module
// loaded is noticed too), and by scripts/start.ts itself (for when the `tsx` or `npm` process
// above it is killed). Its timer keeps no process alive.
const parent = Number(process.env.FACTURA_START_PID) || process.ppid;
const timer = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(timer);
  process.kill(process.pid, 'SIGTERM');
}, 1000);
timer.unref();
