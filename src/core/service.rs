//! What the core answers that is not one actor's message: the storage's health, answers
//! kept for idempotency keys that no write carried, and backups; no front reaches into
//! [`crate::store`].

use std::path::PathBuf;

use super::Core;

use tokio::sync::oneshot;

use crate::actors::Failure;
use crate::model::kept::{KeptAnswer, KeyUse};
use crate::store::backup::{self, BackupError};
use crate::store::codec::Entry;
use crate::store::journal::StorageError;

/// What a backup holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Backup {
    /// Spaces in the copy.
    pub spaces: usize,
    /// Users in the copy.
    pub users: usize,
    /// Bytes copied.
    pub bytes: u64,
}

/// Why a backup was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackupFailure {
    /// The target is not one a backup may write (docs §9a): why.
    BadTarget(String),
    /// The copy failed: why.
    Failed(String),
}

impl Core {
    /// Why the storage cannot write now (a full disk, a failed sync), if it cannot.
    pub(crate) fn storage_problem(&self) -> Option<String> {
        self.journal.health().problem()
    }

    /// Journals `answer`, kept for the key use `used` of a request that wrote nothing (a
    /// 4xx), and waits until it is stored, at most the storage timeout: the answer is kept
    /// in memory either way, so a failure here is only logged by the caller.
    pub(crate) async fn keep_answer(
        &self,
        used: &KeyUse,
        answer: &KeptAnswer,
    ) -> Result<(), Failure> {
        let (done, stored) = oneshot::channel();
        let entry = Entry::Answer(Box::new((used.clone(), answer.clone())));
        self.journal.append(
            &entry,
            true,
            Box::new(move |r| {
                let _ = done.send(r);
            }),
        );
        let bound = self.journal.health().stall_after();
        match tokio::time::timeout(bound, stored).await {
            Ok(stored) => stored
                .unwrap_or(Err(StorageError::Closed))
                .map_err(Failure::Storage),
            Err(_) => Err(Failure::Stalled(bound)),
        }
    }

    /// Copies the data directory into `to` (a new or empty directory outside it), on a
    /// blocking thread while the server goes on serving, and checks the copy recovers.
    pub(crate) async fn backup(&self, to: PathBuf) -> Result<Backup, BackupFailure> {
        let from = self.data_dir.clone();
        let copied = actix_web::web::block(move || backup::backup(&from, &to))
            .await
            .map_err(|e| BackupFailure::Failed(format!("backup thread: {e}")))?;
        match copied {
            Ok((summary, _)) => Ok(Backup {
                spaces: summary.spaces,
                users: summary.users,
                bytes: summary.bytes,
            }),
            Err(e @ BackupError::BadTarget(..)) => Err(BackupFailure::BadTarget(e.to_string())),
            Err(e) => Err(BackupFailure::Failed(e.to_string())),
        }
    }
}
