import { describe, expect, it } from 'vitest';
import { searchPlan, translateQuestion } from '../pipeline/retrieval/crossLingual.ts';
import { accentVariants, restoreAccents, wordsToAnalyse, type Analyses } from '../pipeline/text/accents.ts';
import { ApertiumTranslator, parseAnalyses } from '../pipeline/text/translate.ts';
import { configSchema, type CitaConfig } from '../pipeline/config/schema.ts';
import { apertiumTest } from './support/apertium.ts';

/** Accents put back in a Spanish question typed without them, before it is translated (#15). */

const itApertium = apertiumTest('spa-eng');

/** A few analyses as Apertium's Spanish analyser gives them (the real one is tested below). */
const ANALYSES: Analyses = new Map<string, string[]>([
  ['libreria', []],
  ['librería', ['librería<n><f><sg>']],
  ['como', ['como<cnjadv>', 'como<pr>', 'comer<vblex><pri><p1><sg>']],
  ['salto', ['salto<n><m><sg>', 'saltar<vblex><pri><p1><sg>']],
  ['usuario', ['usuario<n><m><sg>']],
  ['esta', ['este<prn><tn><f><sg>', 'este<det><dem><f><sg>']],
  ['instalada', ['instalado<adj><f><sg>', 'instalar<vblex><pp><f><sg>']],
  ['opcion', []],
  ['opción', ['opción<n><f><sg>']],
  ['que', ['que<cnjsub>', 'que<rel><an><mf><sp>']],
  ['version', []],
  ['versión', ['versión<n><f><sg>']],
  ['los', ['el<det><def><m><pl>', 'prpers<prn><pro><p3><m><pl>']],
  ['de', ['de<pr>']],
  ['lanzo', ['lanzar<vblex><pri><p1><sg>']],
  ['mas', ['mas<cnjcoo>']],
  ['lentos', ['lento<adj><m><pl>']],
  ['por', ['por<pr>']],
  ['falla', ['falla<n><f><sg>', 'fallar<vblex><pri><p3><sg>']],
  ['el', ['el<det><def><m><sg>']],
  ['numero', ['numerar<vblex><pri><p1><sg>']],
  ['número', ['número<n><m><sg>']],
  ['ejecuto', ['ejecutar<vblex><pri><p1><sg>']],
  ['ejecutó', ['ejecutar<vblex><ifi><p3><sg>']],
  ['cuando', ['cuando<cnjadv>']],
  ['borrar', ['borrar<vblex><inf>']],
  ['veo', ['ver<vblex><pri><p1><sg>']],
  ['una', ['uno<det><ind><f><sg>', 'unir<vblex><prs><p3><sg>']],
  ['conexion', []],
  ['conexión', ['conexión<n><f><sg>']],
  ['carpeta', ['carpeta<n><f><sg>']],
  ['solo', ['solo<adv>', 'solo<n><m><sg>', 'solo<adj><m><sg>']],
  ['guarda', ['guardar<vblex><pri><p3><sg>', 'guardar<vblex><imp><p2><sg>']],
  ['llama', ['llama<n><f><sg>', 'llamar<vblex><pri><p3><sg>', 'llamar<vblex><imp><p2><sg>']],
  ['se', ['se<prn><pro><ref><p3><mf><sp>']],
  ['funcione', ['funcionar<vblex><prs><p3><sg>', 'funcionar<vblex><prs><p1><sg>', 'funcionar<vblex><imp><p3><sg>']],
  ['para', ['para<pr>', 'parar<vblex><pri><p3><sg>', 'parar<vblex><imp><p2><sg>']],
  ['cambio', ['cambio<n><m><sg>', 'cambiar<vblex><pri><p1><sg>']],
  ['en', ['en<pr>']],
  ['salga', ['salir<vblex><prs><p3><sg>', 'salir<vblex><prs><p1><sg>', 'salir<vblex><imp><p3><sg>']],
]);

describe('accentVariants', () => {
  it('spells a word with one vowel accented, one n as ñ, or both', () => {
    expect(accentVariants('sesion')).toEqual(expect.arrayContaining(['sésion', 'sesíon', 'sesión']));
    expect(accentVariants('anadio')).toEqual(expect.arrayContaining(['añadio', 'añadió']));
    expect(accentVariants('anadio')).not.toContain('anadio');
    expect(accentVariants('Black')).toEqual([]);
    expect(accentVariants('test_foo')).toEqual([]);
  });
});

describe('restoreAccents', () => {
  const restore = (text: string) => restoreAccents(text, ANALYSES);

  it('puts back the one spelling the analyser knows of a word it does not', () => {
    expect(restore('una libreria').text).toBe('una librería');
    expect(restore('una libreria').restored).toEqual([{ from: 'libreria', to: 'librería' }]);
    // A word no spelling of which is known, or one not analysed at all, stays as typed.
    expect(restore('un parseo raro').text).toBe('un parseo raro');
  });

  it('accents an interrogative that opens the question, and how only before a verb', () => {
    expect(restore('como salto un test si no esta instalada una libreria').text).toBe('cómo salto un test si no está instalada una librería');
    expect(restore('Que version uso?').text).toBe('Qué versión uso?');
    expect(restore('¿por que falla?').text).toBe('¿por qué falla?');
    expect(restore('Como usuario, no lo veo').text).toBe('Como usuario, no lo veo');
  });

  it('after a comma, only where a finite verb (or a clitic and one) follows', () => {
    expect(restore('Tras los fallos, como lanzo los tests?').text).toBe('Tras los fallos, cómo lanzo los tests?');
    expect(restore('tests lentos, como los de red').text).toBe('tests lentos, como los de red');
    expect(restore('Pido confirmar algo peligroso, como borrar la base?').text).toBe('Pido confirmar algo peligroso, como borrar la base?');
    // `una` is also a form of `unir`: a determiner is not read as the verb.
    expect(restore('un recurso, como una conexion, falla?').text).toBe('un recurso, como una conexión, falla?');
  });

  it('inside a question: before a word that can only be a noun, and after por (como: a preposition) before a finite verb', () => {
    expect(restore('En Linux en que carpeta guarda Black?').text).toBe('En Linux en qué carpeta guarda Black?');
    expect(restore('lo uso para investigar por que falla').text).toBe('lo uso para investigar por qué falla');
    // After a pronoun clitic the word is its verb, though `llama` is a noun too.
    expect(restore('lo recoge solo por como se llama?').text).toBe('lo recoge solo por cómo se llama?');
    // A word that is more than a noun, a relative before a verb, `para que` ("so that"), and a sentence that says.
    expect(restore('un aviso que solo salga una vez?').text).toBe('un aviso que solo salga una vez?');
    expect(restore('el cambio que guarda?').text).toBe('el cambio que guarda?');
    expect(restore('Como lanzo para que funcione?').text).toBe('Cómo lanzo para que funcione?');
    expect(restore('Es la carpeta en que guarda. En que carpeta guarda?').text).toBe('Es la carpeta en que guarda. En qué carpeta guarda?');
    expect(restore('Es la carpeta en que guarda?').text).toBe('Es la carpeta en que guarda?');
    expect(restore('Uso una opcion que cambio').text).toBe('Uso una opción que cambio');
  });

  it('only in a sentence that asks: one that ends with a period says', () => {
    expect(restore('Cuando veo el fallo?').text).toBe('Cuándo veo el fallo?');
    expect(restore('Cuando veo el fallo. Nada mas').text).toBe('Cuando veo el fallo. Nada más');
    expect(restore('cuando veo el fallo').text).toBe('cuándo veo el fallo');
  });

  it('makes esta a verb before a participle, and leaves it before a noun; mas is más', () => {
    expect(restore('no esta instalada').text).toBe('no está instalada');
    expect(restore('esta opcion').text).toBe('esta opción');
    expect(restore('los tests mas lentos').text).toBe('los tests más lentos');
  });

  it('reads a verb form after a determiner as the noun it must be, and leaves a verb a verb', () => {
    expect(restore('el numero de tests').text).toBe('el número de tests');
    expect(restore('numero los tests').text).toBe('numero los tests');
    // `ejecutó` is a verb too: nothing says which was meant.
    expect(restore('los ejecuto').text).toBe('los ejecuto');
  });

  it('leaves accented text, names and code exactly as written', () => {
    for (const text of ['¿Cómo salto un test si no está instalada una librería?', 'Uso `como_x` y Libreria.version en Black', 'Uso --version y -opcion']) {
      expect(restore(text)).toEqual({ text, restored: [] });
    }
  });

  it('asks the analyser only for plain lowercase words and their spellings', () => {
    const words = wordsToAnalyse('¿Como uso `pytest.skip` en Black?');
    expect(words).toEqual(expect.arrayContaining(['como', 'cómo', 'uso', 'úso', 'en']));
    expect(words.some((w) => /pytest|skip|black/i.test(w))).toBe(false);
  });
});

describe('parseAnalyses', () => {
  it('reads each word and its analyses, none for an unknown word', () => {
    const out = '^libreria/*libreria$\n^cómo/cómo<adv><itg>$\n^esta/este<prn><tn><f><sg>/este<det><dem><f><sg>$\n';
    expect(parseAnalyses(out)).toEqual(
      new Map([
        ['libreria', []],
        ['cómo', ['cómo<adv><itg>']],
        ['esta', ['este<prn><tn><f><sg>', 'este<det><dem><f><sg>']],
      ]),
    );
  });
});

describe('searchPlan with accents put back', () => {
  it('embeds the question as it should have been typed', () => {
    const accents = { text: '¿cómo salto un test?', restored: [{ from: 'como', to: 'cómo' }] };
    const plan = searchPlan('¿como salto un test?', '', { text: 'How do I skip a test?', accents }, { bm25: 'translated', dense: 'original' }).question;
    expect(plan).toEqual({ bm25: 'How do I skip a test?', dense: ['¿cómo salto un test?'] });
  });
});

describe('accents with the real analyser (Apertium)', () => {
  itApertium('analyses words as Apertium does, unknown ones with none', async () => {
    const t = new ApertiumTranslator();
    const a = await t.analyse(['libreria', 'librería', 'instalada', 'pytest'], 'es', 'en');
    expect(a.get('libreria')).toEqual([]);
    expect(a.get('librería')).toEqual(['librería<n><f><sg>']);
    expect(a.get('instalada')).toEqual(expect.arrayContaining(['instalar<vblex><pp><f><sg>']));
    expect(a.get('pytest')).toEqual([]);
  });

  itApertium('analyses through one running analyser exactly as one lt-proc per call does', async () => {
    const piped = new ApertiumTranslator();
    const oneShot = new ApertiumTranslator({ command: '/usr/bin/apertium' });
    try {
      const words = wordsToAnalyse('Despues de una ejecucion con varios fallos, como lanzo otra vez solo los tests que fallaron?');
      const a = await piped.analyse(words, 'es', 'en');
      expect(a).toEqual(await oneShot.analyse(words, 'es', 'en'));
      expect(a.get('lanzo')).toEqual(['lanzar<vblex><pri><p1><sg>']);
      expect(await (piped as unknown as { parts: Map<string, Map<string, Promise<unknown>>> }).parts.get('analyser')?.get('spa-eng')).toBeDefined();
    } finally {
      await piped.close();
    }
  });

  itApertium('translates a question typed without accents as the same question with them, and says what it put back', async () => {
    const configWith = (accents: 'restore' | 'as-asked') =>
      ({ languages: configSchema.shape.languages.parse({}), retrieval: { crossLingual: { bm25: 'translated', dense: 'original', phrases: 'none', model: 'none', accents } } }) as unknown as Pick<CitaConfig, 'languages' | 'retrieval'>;
    const config = configWith('restore');
    const t = new ApertiumTranslator();
    const typed = await translateQuestion(config, 'Que significa que pytest termine con codigo de salida 5?', 'es', t);
    const accented = await translateQuestion(config, '¿Qué significa que pytest termine con código de salida 5?', 'es', t);
    expect(typed?.accents?.restored).toEqual([
      { from: 'Que', to: 'Qué' },
      { from: 'codigo', to: 'código' },
    ]);
    expect(typed?.text).toMatch(/^What means/);
    expect(typed?.text).toContain('code');
    expect(accented?.accents).toBeUndefined();
    // `as-asked`: translated as typed ("That means … codigo").
    const asTyped = await translateQuestion(configWith('as-asked'), 'Que significa que pytest termine con codigo de salida 5?', 'es', t);
    expect(asTyped?.accents).toBeUndefined();
    expect(asTyped?.text).toMatch(/^That means/);
    expect(asTyped?.text).toContain('codigo');
  });
});
