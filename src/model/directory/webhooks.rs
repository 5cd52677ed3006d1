//! The webhooks the directory keeps (docs §19), by id and by space.

use crate::model::webhook::Webhook;

use super::changes::{Change, DirectoryError};
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

    /// Applies a change to the webhooks (the other changes are not theirs): a webhook's
    /// position never moves back.
    pub(super) fn apply_webhook_change(&mut self, change: &Change) {
        match change {
            Change::WebhookCreated(webhook) => {
                self.webhooks
                    .insert(webhook.id.clone(), Webhook::clone(webhook));
            }
            Change::WebhookSet(webhook) => {
                if let Some(old) = self.webhooks.get_mut(&webhook.id) {
                    let position = old.position.clone();
                    *old = Webhook::clone(webhook);
                    if position.at_or_past(&old.position) {
                        old.position = position;
                    }
                }
            }
            Change::WebhookGone { webhook } => {
                if let Some(webhook) = self.webhooks.get_mut(webhook) {
                    webhook.active = false;
                    webhook.disabled_reason = Some("gone".into());
                }
            }
            Change::WebhookDeleted { webhook } => {
                self.webhooks.remove(webhook);
            }
            Change::WebhookPositions(positions) => {
                for (id, position) in positions {
                    if let Some(webhook) = self.webhooks.get_mut(id) {
                        if !webhook.position.at_or_past(position) {
                            webhook.position = position.clone();
                        }
                    }
                }
            }
            _ => {}
        }
    }
}
