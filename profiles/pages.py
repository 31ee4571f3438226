"""The profile's pages: ``/profile/`` (this device's rounds, drawn by
``static/js/profile/``, and the account's card), ``/profile/account/`` (sign in or make an
account), and the account's forms (sign out, delete). Forms carry Django's CSRF token."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from profiles.accounts import DeleteAccountForm, SignInForm, SignUpForm, sign_out
from web import throttle
from web.admin_throttle import THROTTLED

# Accounts made from one address: a household's, then one every few minutes.
SIGN_UP = throttle.Limit(
    "sign_up", 6, 10, _("too many accounts made from your address; try again later")
)
BACKEND = "django.contrib.auth.backends.ModelBackend"


def _profile(request: HttpRequest, delete_form: DeleteAccountForm | None = None) -> HttpResponse:
    user = request.user
    signed_in = user.is_authenticated
    account = {"email": user.email} if signed_in else None  # type: ignore[union-attr]
    return render(
        request,
        "profiles/profile.html",
        {
            "account": account,
            "profile_data": {"account": account},  # for static/js/profile/main.js
            "delete_form": delete_form or (DeleteAccountForm(user) if signed_in else None),
        },
    )


@never_cache
def profile_page(request: HttpRequest) -> HttpResponse:
    return _profile(request)


@never_cache
def account_page(request: HttpRequest) -> HttpResponse:
    """Sign in (``action=sign_in``) or make an account (``action=sign_up``); either signs
    this browser in and goes to the profile, whose page then joins this device's rounds to
    the account's. A form with errors comes back (200, as Django's forms do; 429 when
    throttled)."""
    sign_in_form = SignInForm(request)
    sign_up_form = SignUpForm()
    status = 200
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "sign_in":
            sign_in_form = SignInForm(request, data=request.POST)
            if sign_in_form.is_valid():
                login(request, sign_in_form.get_user(), backend=BACKEND)
                return redirect("profiles:page")
            if sign_in_form.has_error("__all__", THROTTLED):
                status = 429
        elif action == "sign_up":
            sign_up_form = SignUpForm(request.POST)
            try:
                throttle.take(SIGN_UP, throttle.client_address(request))
            except throttle.Throttled as refused:
                sign_up_form.add_error(None, refused.message)
                status = 429
            else:
                if sign_up_form.is_valid():
                    login(request, sign_up_form.save(), backend=BACKEND)
                    return redirect("profiles:page")
    return render(
        request,
        "profiles/account.html",
        {"sign_in_form": sign_in_form, "sign_up_form": sign_up_form},
        status=status,
    )


@require_POST
def sign_out_view(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        sign_out(request)
    return redirect("profiles:page")


@require_POST
@never_cache
def delete_account(request: HttpRequest) -> HttpResponse:
    """The account and every round it kept, once its password is given again."""
    user = request.user
    if not user.is_authenticated:
        return redirect("profiles:page")
    form = DeleteAccountForm(user, request.POST)
    if not form.is_valid():
        return _profile(request, delete_form=form)
    sign_out(request)
    user.delete()
    messages.success(request, _("Your account and the rounds it kept are deleted."))
    return redirect("profiles:page")
