"""The User-Agent a phone's browser sends (an Android Chrome): the server sends a phone that
opens a Streamlit page's address to the plain page (issue 53). A module of its own: the
locust phones (`hall_phones`) and the threads of `burst` both use it, and importing locust
would make every thread of the bench process a gevent greenlet."""

PHONE_AGENT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like "
               "Gecko) Chrome/140.0 Mobile Safari/537.36")

# a phone asking for the desktop site (Chrome's "Desktop site", Safari's "Request Desktop
# Website"): the User-Agent of a desktop browser — the server cannot tell it from a laptop
DESKTOP_AGENT = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
                 "Chrome/140.0 Safari/537.36")
