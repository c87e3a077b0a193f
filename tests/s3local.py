"""A local S3-compatible store for the tests: moto's server on 127.0.0.1 (a free port),
started by the test and stopped after it, with a thin layer in front that counts the
requests (PUTs, DELETEs, in order) and can answer as a real store would when it refuses:
credentials it does not know (403 InvalidAccessKeyId) or a full bucket (507) after some
uploads. Nothing reaches beyond loopback: boto3 gets this endpoint, made-up credentials
and no instance metadata service."""

from __future__ import annotations

import os
import threading

import boto3
from moto.moto_server.threaded_moto_server import ThreadedMotoServer
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import make_server

KEY = "paisai-test-key"
SECRET = "paisai-test-secret"
ENV = {"AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET,
       "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true",
       "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull}


class Store(ThreadedMotoServer):
    def __init__(self) -> None:
        super().__init__("127.0.0.1", 0, verbose=False)
        self.requests: list[tuple[str, str]] = []  # (method, path) of every write
        self.lock = threading.Lock()
        self.full_after: int | None = None  # PUTs accepted before the bucket is "full"

    def _server_entry(self) -> None:
        app = DomainDispatcherApplication(create_backend_app)

        def counted(environ, start_response):
            method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
            auth = environ.get("HTTP_AUTHORIZATION", "")
            if auth and f"Credential={KEY}/" not in auth:
                return _refuse(start_response, "403 Forbidden", "InvalidAccessKeyId",
                               "The AWS Access Key Id you provided does not exist.")
            if method in ("PUT", "DELETE", "POST"):
                with self.lock:
                    puts = sum(1 for m, _ in self.requests if m == "PUT")
                    if method == "PUT" and self.full_after is not None \
                            and puts >= self.full_after:
                        return _refuse(start_response, "507 Insufficient Storage",
                                       "XMinioStorageFull", "Storage backend has reached "
                                       "its minimum free drive threshold.")
                    self.requests.append((method, path))
            return app(environ, start_response)

        self._server = make_server("127.0.0.1", 0, counted, True,
                                   request_handler=MotoRequestHandler)
        self._server_ready_event.set()
        self._server.serve_forever()

    def start(self) -> None:
        """The server started — the first time with an empty store: moto's servers in one
        process share one backend, so what an earlier test (of any module run by this
        worker) left is gone; started again after a stop, it keeps what it held."""
        super().start()
        if getattr(self, "emptied", False):
            return
        self.emptied = True
        import urllib.request

        urllib.request.urlopen(urllib.request.Request(f"{self.endpoint}/moto-api/reset",
                                                      method="POST"), timeout=10).close()

    @property
    def endpoint(self) -> str:
        host, port = self.get_host_and_port()
        return f"http://{host}:{port}"

    def client(self):
        return boto3.session.Session(aws_access_key_id=KEY, aws_secret_access_key=SECRET,
                                     region_name="us-east-1").client(
            "s3", endpoint_url=self.endpoint)

    def puts(self) -> list[str]:
        with self.lock:
            return [p for m, p in self.requests if m == "PUT"]

    def forget(self) -> None:
        with self.lock:
            self.requests.clear()


def _refuse(start_response, status: str, code: str, message: str):
    body = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
            f"<Message>{message}</Message></Error>").encode()
    start_response(status, [("Content-Type", "application/xml"),
                            ("Content-Length", str(len(body)))])
    return [body]
