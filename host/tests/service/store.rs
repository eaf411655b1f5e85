//! The store/queue contract, run against both implementations: FIFO claims, attempts counted
//! at claim, leases and fencing, reclaim and the attempt limit, hand-back, monotonic progress,
//! webhook delivery scheduling, retention listing.

use crate::both_stores;
use crate::support::*;
use chrono::{Duration as CDuration, Utc};
use quire::service::job::{Job, JobSpec, OutputFormat, Status, MAX_ATTEMPTS};
use quire::service::store::{Claimed, Finish, Reclaimed, Store};
use serde_json::json;

/// A store under a fresh directory (embedded) or a fresh key prefix (Redis).
struct Fixture {
    store: Store,
    prefix: Option<String>,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for Fixture {
    type Target = Store;
    fn deref(&self) -> &Store {
        &self.store
    }
}

impl Fixture {
    async fn close(self) {
        if let Some(p) = &self.prefix {
            redis_cleanup(p).await;
        }
    }
}

async fn open(kind: StoreKind) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(kind, dir.path());
    let store = Store::open(&config).await.expect("store opens");
    Fixture {
        store,
        prefix: config
            .redis_url
            .is_some()
            .then(|| config.redis_key_prefix.clone()),
        _dir: dir,
    }
}

fn new_job(notify: bool) -> Job {
    let id = uuid::Uuid::new_v4().to_string();
    Job::new(JobSpec {
        id: id.clone(),
        file_name: "a.txt".into(),
        output_format: OutputFormat::Markdown,
        use_ocr: false,
        ocr_provider: None,
        webhook_url: None,
        notify_url: notify.then(|| "http://127.0.0.1:9/hook".to_string()),
        result_url: format!("http://localhost/api/v1/jobs/{id}/result"),
        created_at: Utc::now(),
        input_bytes: 5,
        mime: "text/plain".into(),
        input_in_store: false,
        options: Default::default(),
        chunking: None,
    })
}

/// A new job (with a webhook target when `notify`), created and claimed with a minute's lease.
async fn created_and_claimed(store: &Store, notify: bool) -> (Job, Claimed) {
    let job = new_job(notify);
    store.create(&job, None).await.unwrap();
    let now = Utc::now();
    let claimed = store
        .claim(now, now.timestamp_millis() + 60_000)
        .await
        .unwrap()
        .expect("the job just queued");
    (job, claimed)
}

fn done(status: Status) -> Finish {
    Finish {
        status,
        error_message: (status == Status::Failed).then(|| "broken".to_string()),
        metadata: serde_json::Map::new(),
        at: Utc::now(),
    }
}

both_stores!(claims_are_fifo_and_count_attempts, |kind| async move {
    let store = open(kind).await;
    let a = new_job(false);
    let b = new_job(false);
    store.create(&a, None).await.unwrap();
    store.create(&b, None).await.unwrap();
    assert_eq!(store.queue_depth().await.unwrap(), 2);
    let now = Utc::now();
    let lease = now.timestamp_millis() + 60_000;
    let c1 = store.claim(now, lease).await.unwrap().unwrap();
    assert_eq!(c1.job.spec.id, a.spec.id);
    assert_eq!(c1.attempt, 1);
    assert_eq!(c1.job.state.status, Status::Processing);
    let c2 = store.claim(now, lease).await.unwrap().unwrap();
    assert_eq!(c2.job.spec.id, b.spec.id);
    assert!(store.claim(now, lease).await.unwrap().is_none());
    assert_eq!(store.queue_depth().await.unwrap(), 0);
    let got = store.get(&a.spec.id).await.unwrap().unwrap();
    assert_eq!(got.state.status, Status::Processing);
    assert_eq!(got.state.attempts, 1);
    assert_eq!(got.spec, a.spec);
    store.close().await;
});

both_stores!(
    small_uploads_live_in_the_store_until_the_job_ends,
    |kind| async move {
        let store = open(kind).await;
        let mut a = new_job(false);
        a.spec.input_in_store = true;
        // Both stores keep small uploads (on Redis under their own key, issue 16).
        assert!(store.inline_input_limit() >= 10 * 1024);
        store.create(&a, Some(b"hello".to_vec())).await.unwrap();
        assert!(
            store
                .get(&a.spec.id)
                .await
                .unwrap()
                .unwrap()
                .spec
                .input_in_store
        );
        assert_eq!(store.input(&a.spec.id).await.unwrap().unwrap(), b"hello");
        let now = Utc::now();
        let lease = now.timestamp_millis() + 60_000;
        // A handed-back attempt keeps it for the next one...
        let c = store.claim(now, lease).await.unwrap().unwrap();
        assert!(store.release(&a.spec.id, c.attempt, now).await.unwrap());
        assert_eq!(store.input(&a.spec.id).await.unwrap().unwrap(), b"hello");
        // ...as does a reclaimed one...
        let c = store
            .claim(now, now.timestamp_millis() - 1)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(c.attempt, 1);
        assert_eq!(
            store.reclaim(Utc::now()).await.unwrap(),
            vec![Reclaimed::Requeued(a.spec.id.clone())]
        );
        assert_eq!(store.input(&a.spec.id).await.unwrap().unwrap(), b"hello");
        // ...and the end of the job removes it.
        let c = store.claim(now, lease).await.unwrap().unwrap();
        assert!(store
            .finish(&a.spec.id, c.attempt, &done(Status::Completed))
            .await
            .unwrap());
        assert!(store.input(&a.spec.id).await.unwrap().is_none());
        // Deleting a job that has not run removes its upload too.
        let mut b = new_job(false);
        b.spec.input_in_store = true;
        store.create(&b, Some(vec![7u8; 1000])).await.unwrap();
        assert_eq!(store.input(&b.spec.id).await.unwrap().unwrap().len(), 1000);
        assert!(store.delete(&b.spec.id).await.unwrap().is_some());
        assert!(store.input(&b.spec.id).await.unwrap().is_none());
        store.close().await;
    }
);

both_stores!(progress_is_monotonic_and_fenced, |kind| async move {
    let store = open(kind).await;
    let (a, c) = created_and_claimed(&store, false).await;
    assert!(store
        .progress(&a.spec.id, c.attempt, 40, Utc::now())
        .await
        .unwrap());
    assert!(store
        .progress(&a.spec.id, c.attempt, 20, Utc::now())
        .await
        .unwrap());
    assert_eq!(
        store.get(&a.spec.id).await.unwrap().unwrap().state.progress,
        40
    );
    // 100 is for completion only.
    assert!(store
        .progress(&a.spec.id, c.attempt, 100, Utc::now())
        .await
        .unwrap());
    assert_eq!(
        store.get(&a.spec.id).await.unwrap().unwrap().state.progress,
        99
    );
    // A stale attempt cannot write.
    assert!(!store
        .progress(&a.spec.id, c.attempt + 1, 50, Utc::now())
        .await
        .unwrap());
    assert!(!store.renew(&a.spec.id, c.attempt + 1, 0).await.unwrap());
    assert!(!store
        .finish(&a.spec.id, c.attempt + 1, &done(Status::Completed))
        .await
        .unwrap());
    assert!(store
        .finish(&a.spec.id, c.attempt, &done(Status::Completed))
        .await
        .unwrap());
    let j = store.get(&a.spec.id).await.unwrap().unwrap();
    assert_eq!(j.state.status, Status::Completed);
    assert_eq!(j.state.progress, 100);
    assert!(j.state.completed_at.is_some());
    // A finished job takes no more writes.
    assert!(!store
        .finish(&a.spec.id, c.attempt, &done(Status::Failed))
        .await
        .unwrap());
    store.close().await;
});

// A worker whose finish was applied but whose reply was lost (its link cut at that moment:
// scripts/measure/multihost.sh --cut 20) resends the same finish; that must succeed without
// a second change, while any other finish of the ended attempt is still refused.
both_stores!(a_replayed_finish_succeeds_once_applied, |kind| async move {
    let store = open(kind).await;
    let (a, c) = created_and_claimed(&store, true).await;
    let end = done(Status::Completed);
    assert!(store.finish(&a.spec.id, c.attempt, &end).await.unwrap());
    let first = store.get(&a.spec.id).await.unwrap().unwrap();
    assert!(store.finish(&a.spec.id, c.attempt, &end).await.unwrap());
    let again = store.get(&a.spec.id).await.unwrap().unwrap();
    assert_eq!(again.state.status, Status::Completed);
    assert_eq!(again.state.completed_at, first.state.completed_at);
    let mut later = end.clone();
    later.at = end.at + CDuration::seconds(1);
    assert!(!store.finish(&a.spec.id, c.attempt, &later).await.unwrap());
    assert!(!store.finish(&a.spec.id, c.attempt + 1, &end).await.unwrap());
    assert!(!store
        .progress(&a.spec.id, c.attempt, 10, Utc::now())
        .await
        .unwrap());
    store.close().await;
});

both_stores!(
    expired_leases_are_reclaimed_then_failed,
    |kind| async move {
        let store = open(kind).await;
        let mut a = new_job(true);
        a.spec.input_in_store = true;
        store.create(&a, Some(b"hello".to_vec())).await.unwrap();
        let id = a.spec.id.clone();
        let mut attempts = Vec::new();
        for round in 1..=MAX_ATTEMPTS {
            let now = Utc::now();
            // A lease that has already ended: the worker "died".
            let c = store
                .claim(now, now.timestamp_millis() - 1)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(c.attempt, round);
            attempts.push(c.attempt);
            let events = store.reclaim(Utc::now()).await.unwrap();
            if round < MAX_ATTEMPTS {
                assert_eq!(events, vec![Reclaimed::Requeued(id.clone())]);
                let j = store.get(&id).await.unwrap().unwrap();
                assert_eq!(j.state.status, Status::Pending);
                // The old attempt is fenced off.
                assert!(!store
                    .finish(&id, c.attempt, &done(Status::Completed))
                    .await
                    .unwrap());
            } else {
                assert_eq!(events, vec![Reclaimed::Failed(id.clone())]);
            }
        }
        let j = store.get(&id).await.unwrap().unwrap();
        assert_eq!(j.state.status, Status::Failed);
        // A job failed for good keeps no upload.
        assert!(store.input(&id).await.unwrap().is_none());
        assert!(j.state.error_message.unwrap().contains("3 times"));
        assert!(j.state.completed_at.is_some());
        let metadata = serde_json::Value::Object(j.state.metadata.unwrap());
        assert_eq!(
            metadata,
            json!({"detected_mime": "text/plain", "input_bytes": 5,
                   "error_kind": "worker_lost", "attempts": 3})
        );
        // The failure is notified.
        let now = Utc::now().timestamp_millis();
        let d = store
            .claim_delivery(now, now + 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(d.job_id, id);
        assert!(store
            .claim(Utc::now(), now + 60_000)
            .await
            .unwrap()
            .is_none());
        store.close().await;
    }
);

both_stores!(live_leases_are_kept_and_renewed, |kind| async move {
    let store = open(kind).await;
    let a = new_job(false);
    store.create(&a, None).await.unwrap();
    let now = Utc::now();
    let c = store
        .claim(now, now.timestamp_millis() + 200)
        .await
        .unwrap()
        .unwrap();
    assert!(store
        .renew(&a.spec.id, c.attempt, now.timestamp_millis() + 60_000)
        .await
        .unwrap());
    let later = now + CDuration::milliseconds(1_000);
    assert!(store.reclaim(later).await.unwrap().is_empty());
    assert_eq!(
        store.get(&a.spec.id).await.unwrap().unwrap().state.status,
        Status::Processing
    );
    store.close().await;
});

both_stores!(release_hands_back_without_counting, |kind| async move {
    let store = open(kind).await;
    let a = new_job(false);
    let b = new_job(false);
    store.create(&a, None).await.unwrap();
    store.create(&b, None).await.unwrap();
    let now = Utc::now();
    let c = store
        .claim(now, now.timestamp_millis() + 60_000)
        .await
        .unwrap()
        .unwrap();
    assert!(store
        .release(&a.spec.id, c.attempt, Utc::now())
        .await
        .unwrap());
    let j = store.get(&a.spec.id).await.unwrap().unwrap();
    assert_eq!(j.state.status, Status::Pending);
    assert_eq!(j.state.attempts, 0);
    // Handed-back jobs go to the front.
    let again = store
        .claim(now, now.timestamp_millis() + 60_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.job.spec.id, a.spec.id);
    assert_eq!(again.attempt, 1);
    store.close().await;
});

both_stores!(
    deliveries_are_scheduled_with_the_finish,
    |kind| async move {
        let store = open(kind).await;
        let quiet = new_job(false);
        let loud = new_job(true);
        store.create(&quiet, None).await.unwrap();
        store.create(&loud, None).await.unwrap();
        let now = Utc::now();
        for _ in 0..2 {
            let c = store
                .claim(now, now.timestamp_millis() + 60_000)
                .await
                .unwrap()
                .unwrap();
            assert!(store
                .finish(&c.job.spec.id, c.attempt, &done(Status::Completed))
                .await
                .unwrap());
        }
        assert_eq!(store.pending_deliveries().await.unwrap(), 1);
        let t = Utc::now().timestamp_millis();
        let d = store.claim_delivery(t, t + 60_000).await.unwrap().unwrap();
        assert_eq!(d.job_id, loud.spec.id);
        assert_eq!(d.sent, 0);
        // Leased: not handed out twice.
        assert!(store.claim_delivery(t, t + 60_000).await.unwrap().is_none());
        store
            .retry_delivery(
                &d.job_id,
                1,
                t + 100,
                &json!({"delivered": false, "attempts": 1}),
            )
            .await
            .unwrap();
        assert!(
            store.claim_delivery(t, t + 60_000).await.unwrap().is_none(),
            "not due yet"
        );
        let d2 = store
            .claim_delivery(t + 200, t + 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(d2.sent, 1);
        assert_eq!(
            d2.unrecorded, 0,
            "a recorded retry is not an interrupted send"
        );
        store
            .end_delivery(&d2.job_id, &json!({"delivered": true, "attempts": 2}))
            .await
            .unwrap();
        assert_eq!(store.pending_deliveries().await.unwrap(), 0);
        let j = store.get(&loud.spec.id).await.unwrap().unwrap();
        assert_eq!(j.view().metadata.unwrap()["webhook"]["delivered"], true);
        store.close().await;
    }
);

both_stores!(
    a_delivery_claim_reads_the_job_and_tells_an_interrupted_send,
    |kind| async move {
        let store = open(kind).await;
        let (loud, c) = created_and_claimed(&store, true).await;
        assert!(store
            .finish(&c.job.spec.id, c.attempt, &done(Status::Completed))
            .await
            .unwrap());
        let t = Utc::now().timestamp_millis();
        // The claim carries the job as it ended: no second read before the send.
        let d = store.claim_delivery(t, t + 100).await.unwrap().unwrap();
        assert_eq!((d.sent, d.unrecorded), (0, 0));
        let job = d.job.expect("the claim reads the job");
        assert_eq!(job.spec.id, loud.spec.id);
        assert_eq!(job.state.status, Status::Completed);
        // Its sender stops mid-send (nothing recorded); after the lease the delivery is
        // claimed again and says so.
        assert!(store
            .claim_delivery(t + 50, t + 60_000)
            .await
            .unwrap()
            .is_none());
        let d2 = store
            .claim_delivery(t + 200, t + 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(d2.job_id, loud.spec.id);
        assert_eq!((d2.sent, d2.unrecorded), (0, 1));
        // A failed send recorded as a retry keeps the count; the next claim still knows.
        store
            .retry_delivery(
                &d2.job_id,
                1,
                t + 300,
                &json!({"delivered": false, "attempts": 1}),
            )
            .await
            .unwrap();
        let d3 = store
            .claim_delivery(t + 400, t + 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((d3.sent, d3.unrecorded), (1, 1));
        store
            .end_delivery(&d3.job_id, &json!({"delivered": true, "attempts": 2}))
            .await
            .unwrap();
        assert_eq!(store.pending_deliveries().await.unwrap(), 0);
        store.close().await;
    }
);

both_stores!(
    expired_lists_finished_jobs_and_delete_removes,
    |kind| async move {
        let store = open(kind).await;
        let a = new_job(false);
        let b = new_job(false);
        store.create(&a, None).await.unwrap();
        store.create(&b, None).await.unwrap();
        let now = Utc::now();
        let c = store
            .claim(now, now.timestamp_millis() + 60_000)
            .await
            .unwrap()
            .unwrap();
        store
            .finish(&c.job.spec.id, c.attempt, &done(Status::Failed))
            .await
            .unwrap();
        let later = Utc::now().timestamp_millis() + 1;
        assert_eq!(
            store.expired(later, 10).await.unwrap(),
            vec![a.spec.id.clone()]
        );
        assert!(store
            .expired(now.timestamp_millis() - 10_000, 10)
            .await
            .unwrap()
            .is_empty());
        assert!(store.delete(&a.spec.id).await.unwrap().is_some());
        assert!(store.get(&a.spec.id).await.unwrap().is_none());
        assert!(store.expired(later, 10).await.unwrap().is_empty());
        // A deleted pending job is skipped by claim.
        assert!(store.delete(&b.spec.id).await.unwrap().is_some());
        assert!(store
            .claim(Utc::now(), later + 60_000)
            .await
            .unwrap()
            .is_none());
        assert!(store.delete(&b.spec.id).await.unwrap().is_none());
        store.close().await;
    }
);

both_stores!(
    concurrent_claims_hand_each_job_out_once,
    |kind| async move {
        let store = open(kind).await;
        let mut ids = Vec::new();
        for _ in 0..50 {
            let j = new_job(false);
            ids.push(j.spec.id.clone());
            store.create(&j, None).await.unwrap();
        }
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let store = store.store.clone();
            tasks.push(tokio::spawn(async move {
                let mut got = Vec::new();
                while let Some(c) = store
                    .claim(Utc::now(), Utc::now().timestamp_millis() + 60_000)
                    .await
                    .unwrap()
                {
                    got.push(c.job.spec.id);
                }
                got
            }));
        }
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        all.sort();
        ids.sort();
        assert_eq!(all, ids);
        store.close().await;
    }
);

/// On Redis every change publishes the state it made from its own script: a claim, two
/// progress writes in a row, a hand-back, a second claim, the finish and the delete are seven
/// messages in that order with rising `event_seq`, each carrying its own change's state (a
/// publish run after the change read whatever the job had become by then, so a quick second
/// write hid the first from every stream). A progress write that changes nothing is silent.
#[tokio::test]
async fn every_redis_change_publishes_the_state_it_made() {
    use futures::StreamExt;
    let store = open(StoreKind::Redis).await;
    let Store::Redis(redis) = &store.store else {
        unreachable!("a Redis fixture")
    };
    let mut pubsub = redis.subscribe_events().await.unwrap();
    let a = new_job(false);
    store.create(&a, None).await.unwrap();
    let id = a.spec.id.as_str();
    let lease = || Utc::now().timestamp_millis() + 60_000;
    let c = store.claim(Utc::now(), lease()).await.unwrap().unwrap();
    assert!(store.progress(id, c.attempt, 10, Utc::now()).await.unwrap());
    assert!(store.progress(id, c.attempt, 20, Utc::now()).await.unwrap());
    // Not raised: no message.
    assert!(store.progress(id, c.attempt, 15, Utc::now()).await.unwrap());
    assert!(store.release(id, c.attempt, Utc::now()).await.unwrap());
    let c = store.claim(Utc::now(), lease()).await.unwrap().unwrap();
    assert!(store
        .finish(id, c.attempt, &done(Status::Completed))
        .await
        .unwrap());
    assert!(store.delete(id).await.unwrap().is_some());

    let mut stream = pubsub.on_message();
    let mut seen = Vec::new();
    let mut seqs = Vec::new();
    while seen.len() < 7 {
        let msg = tokio::time::timeout(std::time::Duration::from_secs(5), stream.next())
            .await
            .unwrap_or_else(|_| panic!("only {} messages: {seen:?}", seen.len()))
            .unwrap();
        let payload: Vec<u8> = msg.get_payload().unwrap();
        let (about, rest) = quire::service::store::redis::split_event(&payload).unwrap();
        if about != id {
            continue;
        }
        match quire::service::store::redis::decode_event(rest).unwrap() {
            Some((job, seq)) => {
                seqs.push(seq);
                seen.push(format!("{:?} {}", job.state.status, job.state.progress));
            }
            None => seen.push("gone".into()),
        }
    }
    assert_eq!(
        seen,
        [
            "Processing 0",
            "Processing 10",
            "Processing 20",
            "Pending 20",
            "Processing 20",
            "Completed 100",
            "gone"
        ]
    );
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    store.close().await;
}
