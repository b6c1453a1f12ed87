//! The threads a `VecConsole` steps its consoles on: the calling thread and helpers kept for the
//! pool's life. A batch hands each thread its index. A thread waiting for the next batch (and the
//! caller waiting for the batch's end) spins a while before it sleeps: batches follow one
//! another every frame or so, and waking a sleeping thread (on a virtual machine, a halted
//! virtual CPU) costs 100-200 microseconds each time on the project's test machine.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long a waiting thread spins before it sleeps: several times what waking it would cost,
/// so that in a loop of steps (a few microseconds of Python between them) and at a batch's end
/// (when one thread's last console is still running) it rarely sleeps. With 100 microseconds,
/// one wait in six slept and 8 consoles on 2 threads stepped 12-17% fewer frames a second.
/// Spinning yields the core to any thread that needs it.
const SPIN: Duration = Duration::from_millis(1);

/// Returns once `ready()`: spins for up to [`SPIN`], then sleeps until unparked (unparks may
/// come early or stale, so `ready` is checked again after each). The spin yields the core to
/// any thread waiting for it, such as the one that will make `ready()` true when the machine
/// is busier than its cores.
fn wait(ready: impl Fn() -> bool) {
    let start = Instant::now();
    while !ready() {
        if start.elapsed() < SPIN {
            thread::yield_now();
        } else {
            thread::park();
        }
    }
}

/// What a thread runs in a batch, given its index.
type Work<'a> = dyn Fn(usize) + Sync + 'a;

/// The batch being run and the thread that waits for it.
#[derive(Clone)]
struct Batch {
    work: &'static Work<'static>,
    caller: Thread,
}

struct Shared {
    /// Batches started: a helper runs each once.
    started: AtomicU64,
    /// Helpers that have not finished the current batch.
    running: AtomicUsize,
    /// The current batch, set before `started` moves.
    batch: Mutex<Option<Batch>>,
    /// A helper's panic in the current batch, resumed in the caller.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    quit: AtomicBool,
}

pub struct Pool {
    shared: Arc<Shared>,
    helpers: Vec<JoinHandle<()>>,
}

impl Pool {
    /// A pool of `threads` threads: the caller and `threads - 1` helpers named `nestor-vec-<i>`.
    pub fn new(threads: usize) -> std::io::Result<Pool> {
        let shared = Arc::new(Shared {
            started: AtomicU64::new(0),
            running: AtomicUsize::new(0),
            batch: Mutex::new(None),
            panic: Mutex::new(None),
            quit: AtomicBool::new(false),
        });
        let mut pool = Pool {
            shared,
            helpers: Vec::new(),
        };
        for index in 1..threads {
            let shared = Arc::clone(&pool.shared);
            // On an error, dropping the pool stops the helpers already started.
            pool.helpers.push(
                thread::Builder::new()
                    .name(format!("nestor-vec-{index}"))
                    .spawn(move || help(&shared, index))?,
            );
        }
        Ok(pool)
    }

    pub fn threads(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Runs `work(i)` on each thread i (the caller is 0) and returns when all have returned. A
    /// panic in any of them is resumed here, after all have returned.
    pub fn run(&self, work: &Work<'_>) {
        let shared = &*self.shared;
        // SAFETY: helpers use `work` only after `started` moves and before they decrement
        // `running`, and this function returns (or unwinds) only once `running` is 0.
        let work = unsafe { std::mem::transmute::<&Work<'_>, &'static Work<'static>>(work) };
        *lock(&shared.batch) = Some(Batch {
            work,
            caller: thread::current(),
        });
        shared.running.store(self.helpers.len(), Ordering::Relaxed);
        shared.started.fetch_add(1, Ordering::Release);
        for helper in &self.helpers {
            helper.thread().unpark();
        }
        let own = panic::catch_unwind(AssertUnwindSafe(|| work(0)));
        wait(|| shared.running.load(Ordering::Acquire) == 0);
        if let Err(payload) = own {
            panic::resume_unwind(payload);
        }
        if let Some(payload) = lock(&shared.panic).take() {
            panic::resume_unwind(payload);
        }
    }
}

/// A lock that a panic cannot have poisoned: no code panics while holding it.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Helper thread `index`: runs each batch's `work(index)` until the pool is dropped.
fn help(shared: &Shared, index: usize) {
    let mut seen = 0;
    loop {
        wait(|| shared.started.load(Ordering::Acquire) != seen);
        seen += 1;
        if shared.quit.load(Ordering::Acquire) {
            return;
        }
        let Batch { work, caller } = lock(&shared.batch).clone().expect("a batch was set");
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| work(index))) {
            *lock(&shared.panic) = Some(payload);
        }
        // `work` is not used past this point: the caller may return once `running` is 0.
        if shared.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            caller.unpark();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.quit.store(true, Ordering::Relaxed);
        self.shared.started.fetch_add(1, Ordering::Release);
        for helper in self.helpers.drain(..) {
            helper.thread().unpark();
            // A helper panics only outside a batch's work, which it catches.
            let _ = helper.join();
        }
    }
}
