"""Players' accounts (Django's auth): an email and a password, nothing else collected.

The email is the account's name: kept as the user's ``username`` in lower case, so that
"Ann@Example.org" and "ann@example.org" are one account. Signing in and out keeps what the
browser's session holds of its rooms: the players it is (games.sessions) stay its own.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    user_logged_out,
)
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.auth.password_validation import validate_password
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from web.admin_throttle import ThrottledLogin

EMAIL_MAX_LENGTH = 150  # the length of Django's username, where the email is kept


def account_name(email: str) -> str:
    return email.strip().lower()


class SignInForm(ThrottledLogin, AuthenticationForm):
    """Email and password, throttled as the admin's login (web.admin_throttle)."""

    username = forms.EmailField(label=_("Email"), max_length=EMAIL_MAX_LENGTH)

    def clean_username(self) -> str:
        return account_name(self.cleaned_data["username"])


class SignUpForm(forms.Form):
    email = forms.EmailField(label=_("Email"), max_length=EMAIL_MAX_LENGTH)
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        max_length=128,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_email(self) -> str:
        email = account_name(self.cleaned_data["email"])
        if get_user_model().objects.filter(username=email).exists():
            raise forms.ValidationError(
                _("An account with this email exists already: sign in instead."), code="taken"
            )
        return email

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        password, email = cleaned.get("password"), cleaned.get("email")
        if password and email:
            try:
                validate_password(password, User(username=email, email=email))
            except forms.ValidationError as error:
                self.add_error("password", error)
        return cleaned

    def save(self) -> User:
        email = self.cleaned_data["email"]
        return get_user_model().objects.create_user(
            username=email, email=email, password=self.cleaned_data["password"]
        )


class DeleteAccountForm(forms.Form):
    """The account's password, asked again before the account and its rounds go."""

    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        max_length=128,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, user: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not the account's password."), code="wrong")
        return password


def sign_out(request: HttpRequest) -> None:
    """Sign the browser out of its account but keep the rest of its session: Django's
    ``logout`` empties the session, and with it the rooms this browser plays in."""
    user = getattr(request, "user", None)
    user_logged_out.send(sender=type(user), request=request, user=user)
    for key in (SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY):
        request.session.pop(key, None)
    request.session.cycle_key()  # the signed-in session's id is of no use to anyone now
    request.user = AnonymousUser()
