//! Evaluate many HPAs on every core: each evaluation reads shared, immutable inputs (the
//! snapshot, the options) and writes nothing shared, so they run side by side and their
//! results come back in input order, the same as one after another.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Below this many items the threads cost more than they save (an HPA evaluates in tens of
/// microseconds; a thread starts in about as many).
const AT_LEAST: usize = 16;

/// The cores this process may use, read once: `available_parallelism` reads the cgroup's CPU
/// quota from files on each call (about three opens), and a fleet calls [`map`] once per
/// context and once per namespace.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// `f` over `items` on up to every core, results in input order. Threads take the next
/// item as they finish one, so a few slow items do not hold up the rest.
pub fn map<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let cores = cores();
    let threads = cores.min(items.len() / AT_LEAST.max(1)).max(1);
    if threads == 1 {
        return items.into_iter().map(f).collect();
    }
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|i| Mutex::new(Some(i))).collect();
    let out: Vec<Mutex<Option<R>>> = slots.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        let Some(slot) = slots.get(k) else { break };
        let item = slot.lock().ok().and_then(|mut s| s.take());
        if let (Some(item), Ok(mut o)) = (item, out[k].lock()) {
            *o = Some(f(item));
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
    out.into_iter()
        .filter_map(|o| o.into_inner().ok().flatten())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_input_order_whatever_the_threads_do() {
        let items: Vec<u64> = (0..1000).collect();
        // Uneven work: early items are slow, so threads finish out of order.
        let got = map(items.clone(), |i| {
            if i < 20 {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            i * 2
        });
        assert_eq!(got, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert_eq!(
            map(vec![1, 2, 3], |i| i + 1),
            [2, 3, 4],
            "few items: in line"
        );
        assert!(map(Vec::<u8>::new(), |i| i).is_empty());
    }
}
