"""games.rounds queues its tasks by name (games.tasks calls games.rounds, so rounds cannot
import them): each name must be a task the app has registered once Django has started."""

from celery import current_app

from games import rounds, tasks


def test_the_names_rounds_queues_are_the_registered_tasks():
    # shared_task hands out a proxy of the app's task.
    prepare, end = tasks.prepare_round._get_current_object(), tasks.end_round._get_current_object()
    assert current_app.tasks[rounds.PREPARE_ROUND_TASK] is prepare
    assert current_app.tasks[rounds.END_ROUND_TASK] is end
