//! A fair share per token (docs §25): with `--token-rate`, every authenticated request
//! spends from its token's budget, a bucket of `burst` requests refilled at `per_second`
//! a second; a scoped token may have a budget of its own (`rateLimit`), which applies
//! whether or not the server's are on.
//!
//! A front's caller extractor charges the request once ([`charge`]) as soon as it knows the
//! token; a request that finds the bucket empty does nothing and is answered `429` with
//! `Retry-After` ([`Exhausted`]). A batch charges its operations beyond the first
//! ([`charge_more`]). After the route, the edge's [`super::front`] gives back what an
//! answer costs nothing (a `304`, a replayed idempotent answer, a body refused by §9's
//! bounds) and answers with the IETF rate-limit fields ([`Standing`]).
//!
//! A cost larger than the bucket holds is refused, except that a full bucket takes any
//! cost and owes the rest: a batch larger than the burst goes through once the bucket is
//! full, and the bucket is then empty until it has refilled past what it owed. Budgets
//! live in this node's memory: per node under replication (§16), full at start-up. Their
//! memory is a bucket (about 100 bytes) per token used.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use actix_web::http::{header, Method};
use actix_web::{HttpMessage, HttpRequest};

use crate::metrics::METRICS;
use crate::model::{Caller, RateLimit, Scope};

/// How many locks the buckets are spread over, so that workers rarely wait for each other.
const SHARDS: usize = 16;

/// The budgets of the tokens in use.
pub(crate) struct Budgets {
    /// The server's budget per token (`--token-rate`, `--token-burst`), if on.
    server: Option<RateLimit>,
    shards: [Mutex<HashMap<u64, Bucket, BuildHasherDefault<KeyHasher>>>; SHARDS],
    hasher: RandomState,
    started: Instant,
}

/// A bucket: how many requests it held at `at` (seconds since the budgets started), below
/// 0 while it owes.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    level: f64,
    at: f64,
}

/// The budget a token spends from: its key (a hash of the token's id, or of the user's
/// for a primary token: ids are random, so two tokens never share one) and its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Budget {
    key: u64,
    pub(crate) limit: RateLimit,
    /// Whether the token is scoped (for the metrics).
    scoped: bool,
}

impl Budget {
    /// What the budget is kept by: one per token.
    pub(crate) fn key(&self) -> u64 {
        self.key
    }
}

/// Where a budget stands, for the rate-limit fields of an answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Standing {
    limit: RateLimit,
    level: f64,
}

impl Standing {
    /// `RateLimit-Policy: "token";q=<burst>;w=<burst / perSecond, rounded up>`.
    pub(crate) fn policy(&self) -> Vec<u8> {
        let RateLimit { per_second, burst } = self.limit;
        field(
            b"q=",
            burst.into(),
            b"w=",
            burst.div_ceil(per_second).into(),
        )
    }

    /// `RateLimit: "token";r=<requests left>;t=<whole seconds until full>`.
    pub(crate) fn fields(&self) -> Vec<u8> {
        let left = self.level.max(0.0).floor() as u64;
        let missing = f64::from(self.limit.burst) - self.level;
        let full_in = (missing.max(0.0) / f64::from(self.limit.per_second)).ceil() as u64;
        field(b"r=", left, b"t=", full_in)
    }
}

/// `"token";<a><x>;<b><y>`: the value of a rate-limit field, written without `fmt` (every
/// answer carries two while budgets are on).
fn field(a: &[u8], x: u64, b: &[u8], y: u64) -> Vec<u8> {
    let mut value = Vec::with_capacity(48);
    value.extend_from_slice(b"\"token\";");
    value.extend_from_slice(a);
    value.extend_from_slice(itoa::Buffer::new().format(x).as_bytes());
    value.push(b';');
    value.extend_from_slice(b);
    value.extend_from_slice(itoa::Buffer::new().format(y).as_bytes());
    value
}

/// The hasher of the buckets' map, whose keys are hashes already.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// A request refused because its token's budget is spent: when to try again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the token's budget is spent; retry in {} s", retry_after(*.0))]
pub struct Exhausted(pub Duration);

/// `Retry-After` of a wait: whole seconds, at least 1.
pub(crate) fn retry_after(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

impl Budgets {
    /// Budgets of `server` per token; `None` turns them off.
    pub(crate) fn new(server: Option<RateLimit>) -> Budgets {
        Budgets {
            server,
            shards: std::array::from_fn(|_| Mutex::new(HashMap::default())),
            hasher: RandomState::new(),
            started: Instant::now(),
        }
    }

    /// The budget `caller`'s token spends from: its own (a scoped token's `rateLimit`,
    /// which applies whether or not the server's budgets are on), else the server's; `None`
    /// when it has neither.
    pub(crate) fn of(&self, caller: &Caller) -> Option<Budget> {
        let (id, own, scoped) = match &caller.scope {
            Scope::Primary => (&caller.account.id, None, false),
            Scope::Scoped(live) => (&live.token.id, live.rate_limit, true),
        };
        let limit = own.or(self.server)?;
        Some(Budget {
            key: self.hasher.hash_one(id),
            limit,
            scoped,
        })
    }

    /// Spends `cost` requests of `budget`: where it then stands, or how long until it
    /// holds them.
    pub(crate) fn spend(&self, budget: &Budget, cost: u32) -> Result<Standing, Exhausted> {
        self.with(budget, |bucket, limit| {
            let cost = f64::from(cost);
            let full = bucket.level >= f64::from(limit.burst);
            if bucket.level >= cost || full {
                bucket.level -= cost;
                return Ok(());
            }
            let needed = cost.min(f64::from(limit.burst)) - bucket.level;
            let wait = needed / f64::from(limit.per_second);
            Err(Exhausted(Duration::from_secs_f64(wait)))
        })
    }

    /// Gives `cost` requests back to `budget` (an answer that costs nothing); where it
    /// then stands.
    pub(crate) fn refund(&self, budget: &Budget, cost: u32) -> Standing {
        let refunded = self.with(budget, |bucket, limit| {
            bucket.level = (bucket.level + f64::from(cost)).min(f64::from(limit.burst));
            Ok::<(), Exhausted>(())
        });
        refunded.unwrap_or_else(|_| unreachable!("a refund always succeeds"))
    }

    /// Where `budget` stands now.
    pub(crate) fn standing(&self, budget: &Budget) -> Standing {
        self.refund(budget, 0)
    }

    /// Runs `change` on `budget`'s bucket, refilled to now (a new bucket is full); where it
    /// stands after a change that succeeded.
    fn with<E>(
        &self,
        budget: &Budget,
        change: impl FnOnce(&mut Bucket, RateLimit) -> Result<(), E>,
    ) -> Result<Standing, E> {
        let now = self.started.elapsed().as_secs_f64();
        let limit = budget.limit;
        let shard = budget.key as usize % SHARDS;
        let mut buckets = self.shards[shard]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let burst = f64::from(limit.burst);
        let bucket = buckets.entry(budget.key).or_insert(Bucket {
            level: burst,
            at: now,
        });
        let refilled = bucket.level + (now - bucket.at) * f64::from(limit.per_second);
        bucket.level = refilled.min(burst);
        bucket.at = now;
        change(bucket, limit)?;
        Ok(Standing {
            limit,
            level: bucket.level,
        })
    }
}

/// What a request was charged, kept in its extensions.
#[derive(Debug, Clone)]
pub(crate) struct Charged {
    pub(crate) budget: Budget,
    /// The requests spent (0 when it was refused or costs nothing).
    pub(crate) cost: u32,
    /// A conditional read let through with the bucket empty: refused after its route
    /// unless its answer is a `304`.
    pub(crate) owed: Option<Exhausted>,
    /// Where the budget stood after the request spent, when it did: what its answer shows
    /// unless it gives something back.
    pub(crate) standing: Option<Standing>,
}

/// Marks a request that costs nothing (a replayed idempotent answer): [`charge`] neither
/// spends nor refuses for it.
struct Free;

/// Marks request `req` as costing nothing (docs §25: a replayed idempotent answer).
pub(crate) fn free(req: &HttpRequest) {
    req.extensions_mut().insert(Free);
}

/// Charges request `req` of `caller` one request of its token's budget, once however many
/// times the front asks; nothing when the token has no budget, the app no [`Budgets`], or
/// the request was marked [`free`]. With the bucket empty, a conditional read
/// (`If-None-Match` on `GET` or `HEAD`) goes on owing the refusal, since a `304` costs
/// nothing: [`super::front`] refuses it after its route unless it answered `304`.
pub(crate) fn charge(req: &HttpRequest, caller: &Caller) -> Result<(), Exhausted> {
    if req.extensions().get::<Charged>().is_some() {
        return Ok(());
    }
    let Some(budgets) = budgets(req) else {
        return Ok(());
    };
    let Some(budget) = budgets.of(caller) else {
        return Ok(());
    };
    let spent = match req.extensions().get::<Free>() {
        Some(Free) => Ok((0, None)),
        None => budgets.spend(&budget, 1).map(|s| (1, Some(s))),
    };
    let conditional = matches!(*req.method(), Method::GET | Method::HEAD)
        && req.headers().contains_key(header::IF_NONE_MATCH);
    let (cost, standing, owed, refused) = match spent {
        Ok((cost, standing)) => (cost, standing, None, None),
        Err(exhausted) if conditional => (0, None, Some(exhausted), None),
        Err(exhausted) => (0, None, None, Some(exhausted)),
    };
    if refused.is_some() {
        count_refusal(&budget);
    }
    req.extensions_mut().insert(Charged {
        budget,
        cost,
        owed,
        standing,
    });
    refused.map_or(Ok(()), Err)
}

/// Charges `more` requests beyond the one [`charge`] took (a batch's other operations);
/// nothing when the request was not charged.
pub(crate) fn charge_more(req: &HttpRequest, more: u32) -> Result<(), Exhausted> {
    let Some(budgets) = budgets(req) else {
        return Ok(());
    };
    let mut extensions = req.extensions_mut();
    let Some(charged) = extensions.get_mut::<Charged>() else {
        return Ok(());
    };
    if charged.cost == 0 {
        return Ok(()); // free, or let through owing
    }
    let standing = budgets
        .spend(&charged.budget, more)
        .inspect_err(|_| count_refusal(&charged.budget))?;
    charged.cost += more;
    charged.standing = Some(standing);
    Ok(())
}

/// Counts a request refused by `budget`, by the kind of its token.
pub(crate) fn count_refusal(budget: &Budget) {
    METRICS.too_many(match budget.scoped {
        true => "token_budget_scoped",
        false => "token_budget_primary",
    })
}

/// The budget request `req` was charged to, if any.
pub(crate) fn charged(req: &HttpRequest) -> Option<Budget> {
    req.extensions().get::<Charged>().map(|c| c.budget.clone())
}

/// The server's budget per token (`--token-rate`), if on, for the app serving `req`: a
/// scoped token's own may not exceed it.
pub(crate) fn server(req: &HttpRequest) -> Option<RateLimit> {
    budgets(req).and_then(|b| b.server)
}

/// The budgets of the app serving `req`.
fn budgets(req: &HttpRequest) -> Option<&Budgets> {
    super::edge(req).map(|edge| edge.budgets.get_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: Vec<u8>) -> String {
        String::from_utf8(value).unwrap()
    }

    fn budget(per_second: u32, burst: u32) -> Budget {
        Budget {
            key: 1,
            limit: RateLimit { per_second, burst },
            scoped: true,
        }
    }

    #[test]
    fn a_bucket_starts_full_and_refuses_when_empty() {
        let budgets = Budgets::new(None);
        let b = budget(1, 3);
        assert_eq!(budgets.standing(&b).fields(), b"\"token\";r=3;t=0");
        for left in [2, 1, 0] {
            let standing = budgets.spend(&b, 1).unwrap();
            assert_eq!(
                text(standing.fields()).split(';').nth(1).map(str::to_owned),
                Some(format!("r={left}"))
            );
        }
        let Exhausted(wait) = budgets.spend(&b, 1).unwrap_err();
        assert!(wait > Duration::from_millis(900) && wait <= Duration::from_secs(1));
        assert_eq!(retry_after(wait), 1);
        assert_eq!(budgets.standing(&b).policy(), b"\"token\";q=3;w=3");
    }

    #[test]
    fn a_refund_gives_back_up_to_full() {
        let budgets = Budgets::new(None);
        let b = budget(1, 2);
        budgets.spend(&b, 2).unwrap();
        assert_eq!(
            text(budgets.refund(&b, 1).fields())
                .split(';')
                .nth(1)
                .map(str::to_owned),
            Some("r=1".to_owned())
        );
        assert_eq!(budgets.refund(&b, 5).fields(), b"\"token\";r=2;t=0");
    }

    #[test]
    fn a_full_bucket_takes_a_cost_over_its_burst_and_owes_the_rest() {
        let budgets = Budgets::new(None);
        let b = budget(10, 5);
        let standing = budgets.spend(&b, 8).unwrap();
        assert_eq!(
            text(standing.fields()).split(';').nth(1).map(str::to_owned),
            Some("r=0".to_owned())
        );
        // It owes 3: empty for 0.3 s, and t counts until full (0.8 s, rounded up).
        assert!(text(standing.fields()).ends_with("t=1"));
        assert!(budgets.spend(&b, 1).is_err());
        // A cost over what it holds, with the bucket not full, is refused.
        let other = Budget {
            key: 2,
            ..budget(10, 5)
        };
        budgets.spend(&other, 2).unwrap();
        assert!(budgets.spend(&other, 4).is_err());
    }

    #[test]
    fn the_servers_budget_needs_a_rate() {
        assert_eq!(RateLimit::of_flags(0, 0), Ok(None));
        assert!(RateLimit::of_flags(0, 5).is_err());
        assert_eq!(
            RateLimit::of_flags(4, 0),
            Ok(Some(RateLimit {
                per_second: 4,
                burst: 4
            }))
        );
    }
}
