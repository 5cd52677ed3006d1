//! The webhooks the directory keeps (CONTRACT §19), by id and by space.

use crate::model::webhook::Webhook;

use super::changes::DirectoryError;
use super::DirectoryState;

impl DirectoryState {
    /// Webhook `id`.
    pub fn webhook(&self, id: &str) -> Option<&Webhook> {
        self.webhooks.get(id)
    }

    /// Every webhook, by id.
    pub fn webhooks(&self) -> impl Iterator<Item = &Webhook> {
        self.webhooks.values()
    }

    /// Space `space`'s webhooks, by id.
    pub fn webhooks_of<'a>(&'a self, space: &'a str) -> impl Iterator<Item = &'a Webhook> + 'a {
        self.webhooks.values().filter(move |w| *w.space == *space)
    }

    /// Whether webhook `id` exists.
    pub(super) fn has_webhook(&self, id: &str) -> Result<(), DirectoryError> {
        match self.webhooks.contains_key(id) {
            true => Ok(()),
            false => Err(DirectoryError::NotFound(format!("webhook '{id}'"))),
        }
    }
}
