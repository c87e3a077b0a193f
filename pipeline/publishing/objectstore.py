"""Object storage: S3 and the S3-compatible stores organizers in China use (Aliyun OSS,
Tencent COS, MinIO), for the published site and the event bundles.

An address is `s3://bucket/prefix`; `--endpoint-url` names a compatible store. Credentials
come only from boto3's own chain — the standard environment variables
(`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`), `AWS_PROFILE` and the shared files — never
from an option and never stored in the database. Every failure reaches the organizer as a
`StoreError` in words (no network, credentials refused, a missing or full bucket, the
store's own error), after botocore's bounded retries.

>>> parse("s3://paisai-site/2026/national", None)
Location(bucket='paisai-site', prefix='2026/national', endpoint=None)
>>> parse("s3://hall", "http://127.0.0.1:9000").key("index.html")
'index.html'
>>> parse("s3://hall/p/", None).key("teams/A1.html")
'p/teams/A1.html'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from ipaddress import ip_address
from urllib.parse import urlsplit

from pipeline.base.errors import PaisaiError, UsageError

SCHEME = "s3://"
BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
ATTEMPTS = 4  # botocore's standard retries: a lost connection, a throttle, a 5xx, then words


class StoreError(PaisaiError):
    """The object store could not be reached, refused the credentials, or refused a file."""


@dataclass(frozen=True)
class Location:
    bucket: str
    prefix: str  # without slashes at either end; '' for the bucket's root
    endpoint: str | None

    def key(self, relative: str) -> str:
        return f"{self.prefix}/{relative}" if self.prefix else relative

    def below(self, name: str) -> Location:
        return Location(self.bucket, self.key(name).strip("/"), self.endpoint)

    @property
    def url(self) -> str:
        return f"{SCHEME}{self.bucket}/{self.prefix}".rstrip("/")


def is_url(text: str) -> bool:
    return text.strip().lower().startswith(SCHEME)


# a scheme of two letters or more before ':/' (`https://`, `oss://`, `s3:/`, `ftp://`); a
# drive letter (`C:/`, `D:\\`) is one letter and stays a folder
# a scheme (two letters or more: `C:` stays a drive), with or without slashes after it, or
# a store's name with the colon left out (`s3//bucket`)
OTHER_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:|(?:s3|oss|cos|gs|https?|ftp|file)//",
                          re.IGNORECASE)


def looks_like_url(text: str) -> bool:
    r"""An address with a scheme, not a folder: refused unless it is `s3://`.

    >>> [looks_like_url(t) for t in ("https://site/x", "s3:/site/x", "s3:site/x", "oss:b/x",
    ...                              "s3//site/x", "C:/sites", "C:\\sites", "out/site")]
    [True, True, True, True, True, False, False, False]
    """
    return OTHER_SCHEME.match(text.strip()) is not None


def refuse_other_scheme(text: str) -> None:
    """A `--to`/`--from` that names an address paisai cannot write to or read from (a web
    site, OSS's own scheme, FTP, `s3:/` with one slash) is refused in words, never taken for
    a folder named `https:`."""
    if looks_like_url(text) and not is_url(text):
        raise UsageError(
            f"不支持的地址 {text!r}：对象存储请写 s3://存储桶/前缀（阿里云 OSS、腾讯云 COS、MinIO 也用 "
            f"s3://，并加 --endpoint-url 指定服务地址），文件夹请写路径 not an address paisai can "
            f"use: {text!r} — object storage is s3://BUCKET/PREFIX (for OSS, COS or MinIO "
            f"too, with --endpoint-url naming the store), a folder is a path")


def parse(url: str, endpoint: str | None) -> Location:
    """`s3://bucket/prefix` and an optional endpoint (http(s)://host[:port]), checked."""
    text = url.strip()
    if not is_url(text):
        raise UsageError(f"对象存储地址应为 s3://存储桶/前缀 expected s3://bucket/prefix: {url!r}")
    bucket, _, prefix = text[len(SCHEME):].partition("/")
    if not BUCKET.fullmatch(bucket) or ".." in bucket:
        raise UsageError(f"存储桶名称不合规（3–63 个小写字母、数字、. 或 -） not a valid bucket "
                         f"name: {bucket!r}")
    prefix = prefix.strip("/")
    if any(part in ("", ".", "..") for part in prefix.split("/")) and prefix:
        raise UsageError(f"前缀不能含空段、. 或 .. the prefix has an empty, . or .. part: "
                         f"{prefix!r}")
    if "?" in prefix or "#" in prefix or "\\" in prefix:
        raise UsageError(f"前缀不能含 ? # \\ the prefix cannot hold ? # \\: {prefix!r}")
    if endpoint is not None:
        parts = urlsplit(endpoint.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
                or parts.path not in ("", "/"):
            raise UsageError(f"--endpoint-url 应为 http(s)://主机[:端口] expected "
                             f"http(s)://host[:port]: {endpoint!r}")
        endpoint = f"{parts.scheme}://{parts.netloc}"
    return Location(bucket, prefix, endpoint)


def _path_style(endpoint: str | None) -> bool:
    """MinIO and a store on an address (no bucket sub-domains there) take the bucket in the
    path; AWS, OSS and COS take it as a sub-domain."""
    if endpoint is None:
        return False
    host = urlsplit(endpoint).hostname or ""
    if host == "localhost":
        return True
    try:
        ip_address(host)
    except ValueError:
        return False
    return True


def client(location: Location):
    """A boto3 S3 client for the location: boto3's credential chain, bounded retries and
    timeouts (a store that does not answer is said so within seconds, not minutes)."""
    import boto3
    from botocore.config import Config

    config = Config(retries={"max_attempts": ATTEMPTS, "mode": "standard"},
                    connect_timeout=5, read_timeout=30, max_pool_connections=16,
                    s3={"addressing_style": "path" if _path_style(location.endpoint)
                        else "auto"})
    try:
        return boto3.session.Session().client("s3", endpoint_url=location.endpoint,
                                              config=config)
    except Exception as exc:  # a broken profile, an unknown region: said in words
        raise StoreError(f"对象存储客户端无法创建 cannot set up the store's client: {exc}") \
            from None


FULL = {"QuotaExceeded", "StorageQuotaExceeded", "InsufficientStorage", "EntityTooLarge",
        "XMinioStorageFull", "TooManyBuckets", "StorageFull"}
REFUSED = {"InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "ExpiredToken",
           "InvalidToken", "InvalidSecurity", "AuthorizationHeaderMalformed"}


def explain(exc: BaseException, location: Location) -> StoreError:
    """What went wrong, in words the organizer can act on."""
    from botocore import exceptions as bx

    where = location.url + (f" ({location.endpoint})" if location.endpoint else "")
    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, bx.NoCredentialsError | bx.PartialCredentialsError):
        return StoreError(f"没有对象存储的凭据：请设置环境变量 AWS_ACCESS_KEY_ID 与 "
                          f"AWS_SECRET_ACCESS_KEY，或 AWS_PROFILE no credentials for the store: set "
                          f"AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE — {where}")
    if isinstance(exc, bx.EndpointConnectionError | bx.ConnectTimeoutError
                  | bx.ReadTimeoutError | bx.ConnectionClosedError):
        return StoreError(f"连不上对象存储（网络或地址问题，已重试 {ATTEMPTS} 次） cannot reach the "
                          f"store (network or address; tried {ATTEMPTS} times): {where}")
    if isinstance(exc, bx.ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code", ""))
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        said = f"{code} {error.get('Message', '')}".strip()
        if code in REFUSED or status == 403:
            return StoreError(f"对象存储拒绝了凭据或没有权限 the store refused the credentials or "
                              f"the permission ({said}): {where}")
        if code == "NoSuchBucket":
            return StoreError(f"存储桶不存在 no such bucket: {where}")
        if code in FULL or status == 507:
            return StoreError(f"存储桶已满或超出配额 the bucket is full or over its quota "
                              f"({said}): {where}")
        if status and status >= 500:
            return StoreError(f"对象存储出错（已重试 {ATTEMPTS} 次） the store failed (HTTP "
                              f"{status}, tried {ATTEMPTS} times; {said}): {where}")
        return StoreError(f"对象存储拒绝了请求 the store refused the request (HTTP {status}; "
                          f"{said}): {where}")
    if isinstance(exc, bx.BotoCoreError):
        return StoreError(f"对象存储出错 the store failed: {exc} — {where}")
    return StoreError(f"对象存储出错 the store failed: {type(exc).__name__}: {exc} — {where}")


def missing(exc: BaseException) -> bool:
    """The object (or the listing's page) is not there: a first publish, a first sync."""
    from botocore.exceptions import ClientError

    return isinstance(exc, ClientError) and str(
        exc.response.get("Error", {}).get("Code")) in ("NoSuchKey", "404", "NotFound")


class Store:
    """One location's objects, each call's failure said in words (StoreError)."""

    def __init__(self, location: Location, s3=None):
        self.location = location
        self.s3 = s3 if s3 is not None else client(location)  # a client shared, or its own

    def get(self, relative: str) -> bytes | None:
        """The object's bytes, or None when there is none."""
        try:
            answer = self.s3.get_object(Bucket=self.location.bucket,
                                        Key=self.location.key(relative))
            return answer["Body"].read()
        except Exception as exc:
            if missing(exc):
                return None
            raise explain(exc, self.location) from None

    def put(self, relative: str, data: bytes, content_type: str,
            cache_control: str | None = None) -> None:
        extra = {"CacheControl": cache_control} if cache_control else {}
        try:
            self.s3.put_object(Bucket=self.location.bucket, Key=self.location.key(relative),
                               Body=data, ContentType=content_type, **extra)
        except Exception as exc:
            raise explain(exc, self.location) from None

    def delete(self, relatives: list[str]) -> None:
        """Delete objects, a thousand per request (the store's limit)."""
        for start in range(0, len(relatives), 1000):
            batch = [{"Key": self.location.key(r)} for r in relatives[start:start + 1000]]
            try:
                answer = self.s3.delete_objects(Bucket=self.location.bucket,
                                                Delete={"Objects": batch, "Quiet": True})
            except Exception as exc:
                raise explain(exc, self.location) from None
            if answer.get("Errors"):
                first = answer["Errors"][0]
                raise StoreError(f"对象存储未能删除 the store did not delete {first.get('Key')}: "
                                 f"{first.get('Code')} {first.get('Message', '')}")

    def names(self, enough: int = 1000) -> list[str]:
        """The objects below the location (relative names), at most about `enough` of them:
        the first page or pages of the listing, not the whole of a large prefix."""
        found: list[str] = []
        start = f"{self.location.prefix}/" if self.location.prefix else ""
        try:
            pages = self.s3.get_paginator("list_objects_v2").paginate(
                Bucket=self.location.bucket, Prefix=start)
            for page in pages:
                found += [o["Key"][len(start):] for o in page.get("Contents", [])]
                if len(found) >= enough:
                    break
        except Exception as exc:
            raise explain(exc, self.location) from None
        return found

    def folders(self) -> list[str]:
        """The names of the 'folders' right below the location (common prefixes)."""
        found: list[str] = []
        start = f"{self.location.prefix}/" if self.location.prefix else ""
        try:
            pages = self.s3.get_paginator("list_objects_v2").paginate(
                Bucket=self.location.bucket, Prefix=start, Delimiter="/")
            for page in pages:
                found += [p["Prefix"][len(start):].strip("/")
                          for p in page.get("CommonPrefixes", [])]
        except Exception as exc:
            raise explain(exc, self.location) from None
        return found
