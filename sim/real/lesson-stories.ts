import { loadLessons } from '../cli/lessons.js';
import { scenarioOf } from '../lessons/runs.js';
import type { Lesson, Story } from '../lessons/types.js';
import type { Scenario } from '../scenario/types.js';
import type { ClientLibrary } from './ipc.js';

/**
 * A lesson's story as the real runner plays it: the story's own scenario
 * file, at its pinned seed, with the clients that can play it for real. A
 * story's `notReal` says why it has none; `notOnSymfony` why only Locklab's
 * own lock code plays it.
 */
export interface LessonStory {
  /** The lesson's id (its slug), as the lab names lessons. */
  readonly lesson: string;
  readonly folder: string;
  readonly story: string;
  readonly title: string;
  readonly seed: number;
  readonly scenario: Scenario;
  readonly libraries: readonly ClientLibrary[];
}

/** Which clients record a story: none when it cannot be made real, Locklab's own alone when Symfony Lock cannot tell it. */
export function librariesOf(story: Pick<Story, 'notReal' | 'notOnSymfony'>): ClientLibrary[] {
  if (story.notReal !== undefined) return [];
  return story.notOnSymfony === undefined ? ['node', 'symfony'] : ['node'];
}

/** The story's run as it opens: the one its first stop narrates, before a later stop changes it (lesson 4's turns fencing on). */
export function lessonStoryScenario(lesson: Lesson, story: Story): { scenario: Scenario; seed: number } {
  const file = lesson.scenarios[story.scenario]!;
  const set = story.stops[0]?.set;
  return { scenario: scenarioOf(file, { scenario: story.scenario, ...(set === undefined ? {} : { set }) }), seed: file.seed };
}

/** Every story of the shipped lessons, whether or not it plays for real. */
export function lessonStories(lessons: readonly Lesson[] = loadLessons(undefined, false).lessons): Array<LessonStory & { readonly source: Story }> {
  return lessons.flatMap((l) =>
    l.stories.map((s) => ({
      lesson: l.id,
      folder: l.folder,
      story: s.id,
      title: s.title,
      ...lessonStoryScenario(l, s),
      libraries: librariesOf(s),
      source: s,
    })),
  );
}

/** The recording's file name under recorded/: the lesson folder, the story, the client. */
export function lessonRecordingFile(s: Pick<LessonStory, 'folder' | 'story'>, library: ClientLibrary): string {
  return `lesson-${s.folder}--${s.story}-${library}.json`;
}
