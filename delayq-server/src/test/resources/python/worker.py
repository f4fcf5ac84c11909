#!/usr/bin/env python3
"""A delayq worker using only Python's standard library: the HTTP API is all a worker needs.

usage: python3 worker.py BASE_URL QUEUE TOKEN [IDLE_POLLS]

Claims jobs with long polls; acks those whose payload is "ok", nacks those whose payload is
"fail" (to be retried 100 ms later, or to go dead after their last attempt). Acks and nacks send
back the delivery's "token" exactly as the claim gave it (a string of digits), never the attempt. Stops after
IDLE_POLLS (default 2) long polls in a row came back empty, and prints a JSON summary. TOKEN may
be empty when the server needs none.
"""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

WAIT_MS = 1000
LEASE_MS = 10000


def call(base, token, method, path, body=None):
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=WAIT_MS / 1000 + 30) as response:
            text = response.read().decode("utf-8")
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read().decode("utf-8") or "null")


def main(argv):
    base, queue, token = argv[1], argv[2], argv[3]
    idle_limit = int(argv[4]) if len(argv) > 4 else 2
    q = urllib.parse.quote(queue, safe="")
    summary = {"claimed": 0, "acked": 0, "nacked": 0, "unexpected": [], "errors": []}
    idle = 0
    while idle < idle_limit:
        status, jobs = call(base, token, "POST",
                            "/v1/queues/%s/claim?max=10&leaseMs=%d&waitMs=%d" % (q, LEASE_MS, WAIT_MS))
        if status != 200:
            summary["errors"].append({"status": status, "body": jobs})
            break
        if not jobs:
            idle += 1
            continue
        idle = 0
        for job in jobs:
            summary["claimed"] += 1
            if not isinstance(job.get("token"), str) or not job["token"].isdigit():
                summary["errors"].append({"id": job.get("id"), "bad token": job.get("token")})
                continue
            job_path = "/v1/queues/%s/jobs/%s" % (q, urllib.parse.quote(job["id"], safe=""))
            payload = job.get("payload")
            if payload == "ok":
                status, body = call(base, token, "POST", job_path + "/ack", {"token": job["token"]})
                key = "acked"
            elif payload == "fail":
                status, body = call(base, token, "POST", job_path + "/nack",
                                    {"token": job["token"], "retryInMs": 100, "error": "payload said fail"})
                key = "nacked"
            else:
                summary["unexpected"].append(job["id"])
                continue
            if status == 204:
                summary[key] += 1
            else:
                summary["errors"].append({"id": job["id"], "status": status, "body": body})
    print(json.dumps(summary, sort_keys=True))
    return 0 if not summary["errors"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
