//! The HTTP side: requests to a running server as one user or another, and replies read
//! as JSON.

use actix_web::http::header::HeaderMap;
use actix_web::http::Method;
use serde_json::{json, Value};

use super::server::TestApp;

/// A response: status, headers and the body as JSON (`Null` when empty, a JSON string
/// holding the text when the body is not JSON).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    /// The value of header `name`, if present and readable.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// `body.data`.
    pub fn data(&self) -> &Value {
        &self.body["data"]
    }

    /// `body.spaceVersion`, which must be there.
    pub fn version(&self) -> u64 {
        self.body["spaceVersion"]
            .as_u64()
            .unwrap_or_else(|| panic!("no spaceVersion in {self:?}"))
    }

    /// Panics with the whole reply unless the status is `status`.
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Reply {
        assert_eq!(self.status, status, "unexpected reply: {:#?}", self.body);
        self
    }
}

/// A user made through the admin route.
#[derive(Debug, Clone)]
pub struct NewUser {
    pub user_id: String,
    pub default_space_id: String,
    pub token: String,
}

impl TestApp {
    /// A request to `path` with no headers set; send it with [`TestApp::send`].
    pub fn request(&self, method: Method, path: &str) -> awc::ClientRequest {
        self.client
            .request(method, format!("{}{path}", self.address))
    }

    /// A request to `path` with the default user's token and no other header set.
    pub fn authorized(&self, method: Method, path: &str) -> awc::ClientRequest {
        self.request(method, path)
            .insert_header(("Authorization", format!("Bearer {}", self.default_token)))
    }

    /// Sends `request` with `body` (nothing when `None`) and reads the reply.
    pub async fn send(&self, request: awc::ClientRequest, body: Option<Vec<u8>>) -> Reply {
        let sent = match body {
            Some(body) => request.send_body(body).await,
            None => request.send().await,
        };
        let mut response = sent.unwrap_or_else(|e| panic!("request failed: {e}"));
        let bytes = response
            .body()
            .limit(64 << 20)
            .await
            .expect("cannot read the response body");
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        };
        Reply {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            body,
        }
    }

    /// A request as the default user with `headers` and, when given, `body` as JSON.
    pub async fn send_with(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut request = self.authorized(method, path);
        for header in headers {
            request = request.insert_header(*header);
        }
        self.send_json(request, body).await
    }

    /// Sends `request` with `body` as JSON, when given.
    async fn send_json(&self, request: awc::ClientRequest, body: Option<&Value>) -> Reply {
        match body {
            Some(body) => {
                let request = request.insert_header(("Content-Type", "application/json"));
                self.send(request, Some(body.to_string().into_bytes()))
                    .await
            }
            None => self.send(request, None).await,
        }
    }

    /// A request with `token` as bearer token and, when given, `body` as JSON.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: Option<&Value>,
    ) -> Reply {
        let request = self
            .request(method, path)
            .insert_header(("Authorization", format!("Bearer {token}")));
        self.send_json(request, body).await
    }

    /// The same requests as the default user makes, with another user's token.
    pub fn user<'a>(&'a self, token: &'a str) -> As<'a> {
        As { app: self, token }
    }

    /// Requests as the `default` user.
    pub fn default_user(&self) -> As<'_> {
        self.user(&self.default_token)
    }

    /// `GET path` as the default user.
    pub async fn get(&self, path: &str) -> Reply {
        self.default_user().get(path).await
    }

    /// `POST path` with a JSON body as the default user.
    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.default_user().post(path, body).await
    }

    /// `PATCH path` with a JSON body as the default user.
    pub async fn patch(&self, path: &str, body: Value) -> Reply {
        self.default_user().patch(path, body).await
    }

    /// `DELETE path` as the default user.
    pub async fn delete(&self, path: &str) -> Reply {
        self.default_user().delete(path).await
    }

    /// Creates a record in `collection` as the default user; it must succeed. Returns `data`.
    pub async fn create(&self, collection: &str, body: Value) -> Value {
        self.default_user().create(collection, body).await
    }

    /// The default space's current version, read from a listing.
    pub async fn space_version(&self) -> u64 {
        self.get("/api/v1/tasks?limit=1")
            .await
            .expect(200)
            .version()
    }

    /// `GET /metrics` on the API's address with the admin token, which it takes (docs
    /// §21); the body is the text.
    pub async fn metrics(&self) -> Reply {
        self.call(Method::GET, "/metrics", &self.admin_token, None)
            .await
    }

    /// Creates a user through the admin route.
    pub async fn create_user(&self, name: &str) -> NewUser {
        let reply = self
            .call(
                Method::POST,
                "/api/v1/admin/users",
                &self.admin_token,
                Some(&json!({ "name": name })),
            )
            .await;
        reply.expect(201);
        let field = |name: &str| {
            reply.data()[name]
                .as_str()
                .unwrap_or_else(|| panic!("no {name} in {:?}", reply.body))
                .to_string()
        };
        NewUser {
            user_id: field("userId"),
            default_space_id: field("defaultSpaceId"),
            token: field("token"),
        }
    }
}

/// Requests made with one user's token.
#[derive(Clone, Copy)]
pub struct As<'a> {
    app: &'a TestApp,
    token: &'a str,
}

impl<'a> As<'a> {
    /// The server the requests go to.
    pub fn app(&self) -> &'a TestApp {
        self.app
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.app.call(Method::GET, path, self.token, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.app
            .call(Method::POST, path, self.token, Some(&body))
            .await
    }

    pub async fn patch(&self, path: &str, body: Value) -> Reply {
        self.app
            .call(Method::PATCH, path, self.token, Some(&body))
            .await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.app.call(Method::DELETE, path, self.token, None).await
    }

    pub async fn put(&self, path: &str, body: Value) -> Reply {
        self.app
            .call(Method::PUT, path, self.token, Some(&body))
            .await
    }

    /// A request with `headers` and, when given, `body` as JSON.
    pub async fn send_with(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut request = self
            .app
            .request(method, path)
            .insert_header(("Authorization", format!("Bearer {}", self.token)));
        for header in headers {
            request = request.insert_header(*header);
        }
        self.app.send_json(request, body).await
    }

    /// `POST {item}/restore` with no body; `path` is the item's path, with or without a
    /// query.
    pub async fn restore(&self, path: &str) -> Reply {
        let restore = match path.split_once('?') {
            Some((item, query)) => format!("{item}/restore?{query}"),
            None => format!("{path}/restore"),
        };
        self.app
            .call(Method::POST, &restore, self.token, None)
            .await
    }

    /// Creates a record in `collection`; it must succeed. Returns `data`.
    pub async fn create(&self, collection: &str, body: Value) -> Value {
        let reply = self.post(&format!("/api/v1/{collection}"), body).await;
        reply.expect(201);
        reply.data().clone()
    }

    /// Every record a listing returns, walking all pages of `limit` records. `path` may
    /// carry a query already.
    pub async fn list_all(&self, path: &str, limit: u32) -> Vec<Value> {
        let separator = if path.contains('?') { '&' } else { '?' };
        let mut records = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..10_000 {
            let mut url = format!("{path}{separator}limit={limit}");
            if let Some(cursor) = &cursor {
                url.push_str(&format!("&cursor={cursor}"));
            }
            let reply = self.get(&url).await;
            reply.expect(200);
            records.extend(reply.data().as_array().expect("data array").iter().cloned());
            match &reply.body["nextCursor"] {
                Value::String(next) => cursor = Some(next.clone()),
                Value::Null => return records,
                other => panic!("bad nextCursor {other:?}"),
            }
        }
        panic!("listing {path} did not end");
    }
}
